import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace';

/** The OTEL_TRACES_SAMPLER values this SDK honours (the spec's, minus the Jaeger and X-Ray remote samplers). */
export const SAMPLER_NAMES = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof SAMPLER_NAMES)[number];

export interface SamplerSettings {
  name: SamplerName;
  /** The share of new traces kept, for the `traceidratio` samplers. */
  ratio: number;
}

/**
 * Unset, every trace is kept (parent-based, ratio 1): with tracing on in tests and development
 * an order's trace must be whole, and a deployment that finds the export too dear lowers the
 * ratio knowingly (OTEL_TRACES_SAMPLER_ARG) rather than losing traces it did not choose to lose.
 */
export const DEFAULT_SAMPLER: SamplerSettings = { name: 'parentbased_traceidratio', ratio: 1 };

/**
 * The sampler the standard variables ask for: OTEL_TRACES_SAMPLER (one of `SAMPLER_NAMES`) and,
 * for the ratio samplers, OTEL_TRACES_SAMPLER_ARG (a number from 0 to 1; unset, the default's ratio).
 * A value it cannot honour stops the process, naming the variable, instead of sampling otherwise
 * than the operator meant (the spec would fall back to the default and warn).
 */
export function samplerSettings(env: NodeJS.ProcessEnv = process.env): SamplerSettings {
  const name = env['OTEL_TRACES_SAMPLER']?.trim().toLowerCase() || DEFAULT_SAMPLER.name;
  if (!(SAMPLER_NAMES as readonly string[]).includes(name)) {
    throw new Error(`OTEL_TRACES_SAMPLER must be one of ${SAMPLER_NAMES.join(', ')}; got '${env['OTEL_TRACES_SAMPLER']}'`);
  }
  const arg = env['OTEL_TRACES_SAMPLER_ARG']?.trim();
  if (!name.endsWith('traceidratio') || !arg) return { name: name as SamplerName, ratio: DEFAULT_SAMPLER.ratio };
  const ratio = Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (the share of traces kept); got '${arg}'`);
  }
  return { name: name as SamplerName, ratio };
}

/**
 * The SDK's sampler for `settings`. The parent-based ones follow the sampled flag of the caller's
 * `traceparent` (an RPC payload's, a Kafka message's), so an order's trace is kept or dropped
 * whole across the processes; only a trace's first span is decided by the ratio.
 *
 * `publicEdge` (the gateway): a client's `traceparent` still names the trace and the parent span,
 * but its sampled flag is not followed; the ratio decides, by the trace id, as for a new trace.
 * Else any client, or one whose own tracing keeps everything, would have every one of its
 * requests traced through the store whatever share the operator chose.
 */
export function samplerFor({ name, ratio }: SamplerSettings, { publicEdge = false }: { publicEdge?: boolean } = {}): Sampler {
  const parentBased = (root: Sampler) =>
    new ParentBasedSampler(publicEdge ? { root, remoteParentSampled: root, remoteParentNotSampled: root } : { root });
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return parentBased(new AlwaysOnSampler());
    case 'parentbased_always_off':
      return parentBased(new AlwaysOffSampler());
    case 'parentbased_traceidratio':
      return parentBased(new TraceIdRatioBasedSampler(ratio));
  }
}
