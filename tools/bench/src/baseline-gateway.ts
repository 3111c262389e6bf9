// BENCH_BASELINE_GATEWAY=<main.js of another gateway build>: that build runs beside the stack's
// gateway, in front of the same services with the same settings, so that the read path measures
// both builds in the same run (e.g. before and after a change of the gateway).
import * as path from 'node:path';
import { launch } from '@petstore/launcher';
import type { StartProcessOptions } from '@petstore/stack';
import type { Layout } from './bench-kafka';
import { BASELINE_GATEWAY } from './knobs';

/** Ports of the baseline gateway: beside the stack's own, within the layout's range. */
const PORT_SHIFT = 50;

export type ProcessOptions = Pick<StartProcessOptions, 'extraEnv' | 'nodeArgs' | 'output'>;

export async function startBaselineGateway(layout: Layout, { extraEnv = {}, nodeArgs = [], output = process.stdout }: ProcessOptions = {}) {
  const main = BASELINE_GATEWAY;
  if (!main) return undefined;
  const port = Number(layout.envs.gateway.HTTP_PORT) + PORT_SHIFT;
  const env = { ...extraEnv, ...layout.envs.gateway, HTTP_PORT: String(port), METRICS_PORT: String(Number(layout.envs.gateway.METRICS_PORT) + PORT_SHIFT) };
  const baseline = launch(path.resolve(main), { env, nodeArgs, label: 'baseline', output });
  const url = `http://127.0.0.1:${port}`;
  await baseline.ready(`${url}/health/ready`);
  return { url, main, stop: () => baseline.stop() };
}
