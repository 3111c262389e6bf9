// The stack the bench measures: on its own ports, databases and topic namespace (+20000), quiet,
// and restarted differently by the sections that compare one stack run two ways.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build, dropDatabases, ensureKafka, ensurePostgres, ROOT, type RunningStack, runMigrations, stackLayout, startStack, type StartProcessOptions } from '@petstore/stack';
import { deleteBenchTopics, type Layout } from './bench-kafka';
import { API_KEY, CPU_PROFILE_DIR, SETTINGS } from './knobs';
import { childrenOf, type Processes } from './proc-cpu';

/** Every stack process's variables beside its layout's: production mode, quiet, no rate limit, the bench's key. */
export const BENCH_ENV = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_SECOND: '0',
  API_KEYS: JSON.stringify([{ name: 'bench', key: API_KEY, scopes: ['*'] }]),
};

/** `layout` with `more(app)`'s variables added to each process's. */
export function withEnv(layout: Layout, more: (app: string) => Record<string, string>): Layout {
  return { ...layout, envs: Object.fromEntries(Object.entries(layout.envs as Record<string, Record<string, string>>).map(([app, env]) => [app, { ...env, ...more(app) }])) as Layout['envs'] };
}

export class BenchStack {
  private constructor(
    readonly layout: Layout,
    readonly namespace: string,
    private readonly options: Pick<StartProcessOptions, 'nodeArgs' | 'output'>,
    private running: RunningStack,
  ) {}

  /** Builds the apps, lays out and migrates fresh databases, clears old runs' topics and starts the stack. */
  static async start(): Promise<BenchStack> {
    await ensurePostgres();
    ensureKafka();
    build();
    const namespace = `bench-${randomBytes(4).toString('hex')}.`;
    // The harness user: the saga floor's front sends its orders over this NATS server too (BENCH_FLOOR_FRONT).
    const layout = stackLayout({ offset: 20_000, databaseSuffix: '_bench', namespace, harness: SETTINGS.FLOOR_FRONT === 'nats' });
    await deleteBenchTopics(layout);
    await dropDatabases(layout);
    await runMigrations(layout, BENCH_ENV);
    // The services' own output would drown the report; it is kept in tmp/ for a look afterwards.
    fs.mkdirSync(path.join(ROOT, 'tmp'), { recursive: true });
    // Summarise the profiles with `node scripts/bench.mjs cpu-profile-summary <dir>`.
    const nodeArgs = CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROFILE_DIR)}`] : [];
    const options = { nodeArgs, output: fs.createWriteStream(path.join(ROOT, 'tmp/bench-stack.log')) };
    return new BenchStack(layout, namespace, options, await startStack(layout, { extraEnv: BENCH_ENV, ...options }));
  }

  /** The running stack's processes by app (new ones after a restart). */
  get processes(): Processes {
    return childrenOf(Object.entries(this.running.processes));
  }

  /** How a process beside the stack (the baseline gateway) starts as the stack's do. */
  get processOptions() {
    return { extraEnv: BENCH_ENV, ...this.options };
  }

  /** The stack stopped and started again on `layout`, with `moreEnv` for every process. */
  async restart(layout: Layout = this.layout, moreEnv: Record<string, string> = {}): Promise<void> {
    await this.running.stop();
    this.running = await startStack(layout, { extraEnv: { ...BENCH_ENV, ...moreEnv }, ...this.options });
  }

  async stop(): Promise<void> {
    await this.running.stop();
  }
}
