import { ROOT_CONTEXT, SpanKind, trace, TraceFlags, type Context } from '@opentelemetry/api';
import { SamplingDecision, type Sampler } from '@opentelemetry/sdk-trace';
import { DEFAULT_SAMPLER, samplerFor, samplerSettings } from './trace-sampler';

/** A trace id that TraceIdRatioBasedSampler places at `position` (0 < position < 1) of its range: kept by any larger ratio. */
function traceIdAt(position: number): string {
  // The sampler XORs the id's four 32-bit words: three zero words leave the first as the id's place.
  return Math.floor(position * 0xffffffff).toString(16).padStart(8, '0') + '0'.repeat(24);
}

function remoteParent(sampled: boolean): Context {
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: 'f'.repeat(32),
    spanId: '1'.repeat(16),
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
  });
}

function decide(sampler: Sampler, parent: Context, traceId: string): SamplingDecision {
  return sampler.shouldSample(parent, traceId, 'POST /v1/store/orders', SpanKind.SERVER, {}, []).decision;
}

describe('samplerSettings', () => {
  it('keeps every trace, parent-based, when nothing is set', () => {
    expect(samplerSettings({})).toEqual({ name: 'parentbased_traceidratio', ratio: 1 });
    expect(DEFAULT_SAMPLER).toEqual({ name: 'parentbased_traceidratio', ratio: 1 });
  });

  it('reads the standard variables, the name in any case', () => {
    expect(samplerSettings({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })).toEqual({ name: 'parentbased_traceidratio', ratio: 0.1 });
    expect(samplerSettings({ OTEL_TRACES_SAMPLER: ' TraceIdRatio ', OTEL_TRACES_SAMPLER_ARG: '0' })).toEqual({ name: 'traceidratio', ratio: 0 });
    expect(samplerSettings({ OTEL_TRACES_SAMPLER: 'always_off' }).name).toBe('always_off');
  });

  it('takes the ratio for the default sampler too, and the default ratio when the argument is empty', () => {
    expect(samplerSettings({ OTEL_TRACES_SAMPLER_ARG: '0.25' })).toEqual({ name: 'parentbased_traceidratio', ratio: 0.25 });
    expect(samplerSettings({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: ' ' })).toEqual({ name: 'traceidratio', ratio: 1 });
  });

  it('ignores the argument of a sampler that has no ratio', () => {
    expect(samplerSettings({ OTEL_TRACES_SAMPLER: 'parentbased_always_on', OTEL_TRACES_SAMPLER_ARG: 'whatever' })).toEqual({ name: 'parentbased_always_on', ratio: 1 });
  });

  it('refuses what it cannot honour, naming the variable', () => {
    expect(() => samplerSettings({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(/^OTEL_TRACES_SAMPLER must be one of .*got 'jaeger_remote'/);
    for (const arg of ['1.5', '-0.1', 'ten percent', 'NaN']) {
      expect(() => samplerSettings({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: arg })).toThrow(/^OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/);
    }
  });
});

describe('samplerFor', () => {
  const kept = SamplingDecision.RECORD_AND_SAMPLED;
  const dropped = SamplingDecision.NOT_RECORD;

  it('decides a new trace by its id against the ratio', () => {
    const tenth = samplerFor({ name: 'parentbased_traceidratio', ratio: 0.1 });
    expect(decide(tenth, ROOT_CONTEXT, traceIdAt(0.05))).toBe(kept);
    expect(decide(tenth, ROOT_CONTEXT, traceIdAt(0.5))).toBe(dropped);
    expect(decide(samplerFor(DEFAULT_SAMPLER), ROOT_CONTEXT, traceIdAt(0.999))).toBe(kept);
    expect(decide(samplerFor({ name: 'parentbased_traceidratio', ratio: 0 }), ROOT_CONTEXT, traceIdAt(0.001))).toBe(dropped);
  });

  it('follows the caller when there is one, whatever the ratio: a trace is kept or dropped whole', () => {
    const none = samplerFor({ name: 'parentbased_traceidratio', ratio: 0 });
    const all = samplerFor({ name: 'parentbased_traceidratio', ratio: 1 });
    expect(decide(none, remoteParent(true), traceIdAt(0.5))).toBe(kept);
    expect(decide(all, remoteParent(false), traceIdAt(0.5))).toBe(dropped);
  });

  it("at the public edge, names the trace after the client's traceparent but keeps it by the ratio, not by the client's flag", () => {
    const edge = samplerFor({ name: 'parentbased_traceidratio', ratio: 0.1 }, { publicEdge: true });
    expect(decide(edge, remoteParent(true), traceIdAt(0.5))).toBe(dropped);
    expect(decide(edge, remoteParent(true), traceIdAt(0.05))).toBe(kept);
    expect(decide(edge, remoteParent(false), traceIdAt(0.05))).toBe(kept);
    expect(decide(edge, ROOT_CONTEXT, traceIdAt(0.5))).toBe(dropped);
    expect(decide(samplerFor(DEFAULT_SAMPLER, { publicEdge: true }), remoteParent(true), traceIdAt(0.999))).toBe(kept);
    expect(decide(samplerFor({ name: 'parentbased_always_off', ratio: 1 }, { publicEdge: true }), remoteParent(true), traceIdAt(0.001))).toBe(dropped);
  });

  it('follows a sampled local parent at the edge too: the rest of a kept request stays in its trace', () => {
    const edge = samplerFor({ name: 'parentbased_traceidratio', ratio: 0 }, { publicEdge: true });
    const localParent = trace.setSpanContext(ROOT_CONTEXT, { traceId: 'f'.repeat(32), spanId: '2'.repeat(16), traceFlags: TraceFlags.SAMPLED, isRemote: false });
    expect(decide(edge, localParent, traceIdAt(0.5))).toBe(kept);
  });

  it('ignores the caller when not parent-based', () => {
    expect(decide(samplerFor({ name: 'traceidratio', ratio: 0.1 }), remoteParent(true), traceIdAt(0.5))).toBe(dropped);
    expect(decide(samplerFor({ name: 'always_on', ratio: 1 }), remoteParent(false), traceIdAt(0.5))).toBe(kept);
    expect(decide(samplerFor({ name: 'always_off', ratio: 1 }), remoteParent(true), traceIdAt(0.5))).toBe(dropped);
    expect(decide(samplerFor({ name: 'parentbased_always_off', ratio: 1 }), ROOT_CONTEXT, traceIdAt(0.001))).toBe(dropped);
    expect(decide(samplerFor({ name: 'parentbased_always_on', ratio: 1 }), ROOT_CONTEXT, traceIdAt(0.999))).toBe(kept);
  });
});
