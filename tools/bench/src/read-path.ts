// The read path: two catalog queries through the gateway, straight to the catalog over its RPC
// transport, and from the floor (node:http + pg, a statement per request), with a baseline
// gateway build if given, in rounds: each round runs every path of every query in turn, so that
// the host's drift between runs a minute apart reaches every path alike.
import { fork } from 'node:child_process';
import * as path from 'node:path';
import { type ProcessOptions, startBaselineGateway } from './baseline-gateway';
import type { Layout } from './bench-kafka';
import { cannon, type CannonResult } from './cannon';
import { log, ratio, round } from './figures';
import { type HostProbe, probeHostMs } from './host-speed';
import { API_KEY, FLOOR_PORT, SETTINGS } from './knobs';
import type { Processes } from './proc-cpu';
import { rpcLoad } from './rpc-load';

export interface ReadResult {
  name: string;
  transport: string;
  gateway: CannonResult;
  direct: { requestsPerSecond: number | null; p50: number | null; p99: number | null; errors: number };
  floor: CannonResult;
  gatewayToDirect: number | null;
  gatewayToFloor: number | null;
  baseline?: CannonResult & { build: string };
  baselineToFloor?: number | null;
  /** 1-based; absent when the run measured one round, as every run before 2026-11-30 did. */
  round?: number;
  /** The host's probe before the gateway's run and after the floor's (absent before 2026-11-30). */
  hostProbeMs?: HostProbe;
}

/** Two reads as each path serves them: the gateway's route, the floor's, and the catalog's RPC pattern. */
function readsOf(category: { id: number }) {
  return [
    {
      name: 'GET /v1/categories/{id}',
      gateway: `/v1/categories/${category.id}`,
      floor: `/categories/${category.id}`,
      pattern: { cmd: 'categories.get' },
      payload: () => ({ requestId: 'bench', id: String(category.id) }),
    },
    {
      name: 'GET /v1/pets?limit=20',
      gateway: '/v1/pets?limit=20',
      floor: '/pets?limit=20',
      pattern: { cmd: 'pets.list' },
      payload: () => ({ requestId: 'bench', limit: 20, after: 0 }),
    },
  ];
}

/**
 * `baselineOptions`: how to start the baseline gateway build (BENCH_BASELINE_GATEWAY), as the
 * stack's processes start. `rounds`: how many times every path of every query runs (BENCH_READ_ROUNDS
 * in the main section; one per stack run in the security and transports sections, which alternate
 * their runs already).
 */
export async function readPath(
  layout: Layout,
  category: { id: number },
  processes: Processes,
  { baselineOptions, rounds = 1 }: { baselineOptions?: ProcessOptions; rounds?: number } = {},
): Promise<ReadResult[]> {
  log('read path');
  const baseline = await startBaselineGateway(layout, baselineOptions);
  // A program of its own beside this bundle (dist/tools/bench/floor-server.js).
  const floor = fork(path.join(__dirname, 'floor-server.js'), { env: { ...process.env, PORT: String(FLOOR_PORT), DATABASE_URL: layout.envs.catalog.DATABASE_URL } });
  await new Promise((resolve) => floor.once('message', resolve));
  const headers = { authorization: `Bearer ${API_KEY}` };
  const results: ReadResult[] = [];
  try {
    for (let turn = 1; turn <= rounds; turn++) {
      for (const read of readsOf(category)) {
        const probedBefore = probeHostMs();
        const viaGateway = await cannon({ url: `${layout.urls.gateway}${read.gateway}`, headers, warmup: true, cpuOf: processes });
        const viaBaseline = baseline && (await cannon({ url: `${baseline.url}${read.gateway}`, headers, warmup: true }));
        const direct = await rpcLoad({
          env: layout.envs.catalog,
          callerEnv: layout.envs.gateway,
          service: 'catalog',
          pattern: read.pattern,
          payload: read.payload,
          connections: SETTINGS.CONNECTIONS,
          durationSeconds: SETTINGS.READ_SECONDS,
        });
        const floorRun = await cannon({ url: `http://127.0.0.1:${FLOOR_PORT}${read.floor}`, warmup: true, cpuOf: { floor } });
        results.push({
          name: read.name,
          transport: (layout.envs.catalog.RPC_TRANSPORT ?? 'nats').toUpperCase(),
          gateway: viaGateway,
          direct: { requestsPerSecond: round(direct.requestsPerSecond), p50: round(direct.p50, 2), p99: round(direct.p99, 2), errors: direct.errors },
          floor: floorRun,
          gatewayToDirect: ratio(viaGateway.requestsPerSecond, direct.requestsPerSecond),
          gatewayToFloor: ratio(viaGateway.requestsPerSecond, floorRun.requestsPerSecond),
          ...(viaBaseline && { baseline: { build: baseline.main, ...viaBaseline }, baselineToFloor: ratio(viaBaseline.requestsPerSecond, floorRun.requestsPerSecond) }),
          ...(rounds > 1 && { round: turn }),
          hostProbeMs: { before: probedBefore, after: probeHostMs() },
        });
      }
    }
  } finally {
    floor.kill('SIGTERM');
    await baseline?.stop();
  }
  return results;
}
