// `npm run cluster`: the stack in scaled form on this machine — three Kafka brokers, two replicas
// of every service, two gateways behind HAProxy on :3000. A replica that exits is started again
// (as an orchestrator would); Ctrl-C stops everything but the brokers.
//
// `npm run cluster -- restart <replica>` (e.g. orders-1), from another terminal: a graceful restart
// of one replica of the running cluster; it returns once the new process is ready.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build, runMigrations } from '../build';
import { clusterKafka, clusterLayout, type ClusterLayout } from '../cluster/cluster-layout';
import { ensureNatsAndRedis, startCluster, type RunningCluster } from '../cluster/start-cluster';
import { DEV_API_KEY, SERVICES } from '../layout';
import { ensurePostgres } from '../machine-services';
import { ROOT } from '../paths';
import { terminalOutput } from '../terminal-output';

const PIDS_FILE = path.join(ROOT, 'tmp/cluster/replicas.json');
/** A replica that keeps dying is started again after this, not in a tight loop. */
const RESTART_DELAY_MS = 1000;

/** `cluster()` runs the cluster until SIGINT or SIGTERM; `cluster('restart', name)` restarts one replica of it. */
export async function cluster(command?: string, replica?: string): Promise<number> {
  const layout = clusterLayout();
  return command === 'restart' ? restartOne(layout, replica) : run(layout);
}

async function run(layout: ClusterLayout): Promise<number> {
  let running: RunningCluster | undefined;
  let stopping = false;
  const pids: Record<string, number | undefined> = {};
  const writePids = () => {
    fs.mkdirSync(path.dirname(PIDS_FILE), { recursive: true });
    fs.writeFileSync(PIDS_FILE, `${JSON.stringify(pids, null, 2)}\n`);
  };
  /** Starts `name` again whenever it exits while the cluster runs. */
  const supervise = (cluster: RunningCluster, name: string) => {
    const child = cluster.processes.get(name)?.child;
    if (!child) return;
    pids[name] = child.pid;
    writePids();
    child.once('exit', (code, signal) => {
      if (stopping) return;
      console.log(`[cluster]   ${name} (pid ${child.pid}) exited (${signal ?? `code ${code}`}); starting it again`);
      setTimeout(() => {
        if (stopping) return;
        cluster.start(name).then(
          () => {
            supervise(cluster, name);
            console.log(`[cluster]   ${name} is ready again (pid ${pids[name]})`);
          },
          (error: Error) => {
            console.error(`[cluster]   ${name} did not start: ${error.message}`);
            if (!stopping) supervise(cluster, name);
          },
        );
      }, RESTART_DELAY_MS);
    });
  };

  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the replicas and HAProxy…`);
    await running?.stopAll();
    fs.rmSync(PIDS_FILE, { force: true });
    console.log('Stopped. The Kafka cluster keeps running for the next start; `bash scripts/kafka.sh cluster stop` stops it.');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    await ensurePostgres();
    await ensureNatsAndRedis(layout);
    clusterKafka('start');
    build();
    await runMigrations(layout);
    const started = await startCluster(layout, { output: terminalOutput() });
    running = started;
    // A signal during start-up: shutdown stops what started and exits.
    if (stopping) return new Promise<number>(() => undefined);
    for (const name of [...layout.services, ...layout.gateways]) supervise(started, name);
    const gateway = layout.urls.gateway;
    const port = (name: string) => layout.envOf(name).HTTP_PORT;
    const byTier = ['gateway', ...SERVICES].map((tier) => {
      const names = [...layout.services, ...layout.gateways].filter((name) => name.startsWith(`${tier}-`));
      return `${tier.padEnd(10)} ${names.map((name) => `${name} :${port(name)}`).join(', ')}`;
    });
    console.log(`
  Pet Store API  ${gateway}/v1/pets   (HAProxy, round robin over the gateways)
  Docs           ${gateway}/docs
  Dev API key    ${DEV_API_KEY}   (Authorization: Bearer ${DEV_API_KEY})
  HAProxy stats  http://127.0.0.1:${layout.balancer.statsPort}/   (Prometheus: /metrics)
  Kafka          ${layout.brokers}   (3 brokers, replication factor 3, min.insync.replicas 2)
  Replicas       ${byTier.join('\n                 ')}
                 (pids in ${path.relative(ROOT, PIDS_FILE)})

  Restart one replica:  npm run cluster -- restart orders-1
  Ctrl-C stops the replicas and HAProxy.`);
  } catch (error) {
    console.error(`\nnpm run cluster failed: ${(error as Error).message}`);
    stopping = true;
    await running?.stopAll();
    return 1;
  }
  // The replicas run until a signal stops them (shutdown above exits).
  return new Promise<number>(() => undefined);
}

/** SIGTERM to one replica of the running cluster, then wait for its successor to be ready. */
async function restartOne(layout: ClusterLayout, name: string | undefined): Promise<number> {
  let pids: Record<string, number>;
  try {
    pids = JSON.parse(fs.readFileSync(PIDS_FILE, 'utf8'));
  } catch {
    console.error(`No running cluster (${path.relative(ROOT, PIDS_FILE)} is missing): start one with npm run cluster`);
    return 1;
  }
  if (!name || !pids[name]) {
    console.error(`No replica named ${name ?? '(none given)'}; the cluster runs ${Object.keys(pids).join(', ')}`);
    return 2;
  }
  const old = pids[name];
  console.log(`[cluster] SIGTERM to ${name} (pid ${old})`);
  process.kill(old, 'SIGTERM');
  const deadline = Date.now() + 120_000;
  for (;;) {
    const now = JSON.parse(fs.readFileSync(PIDS_FILE, 'utf8'))[name];
    if (now && now !== old) {
      const ready = await fetch(`${layout.urlOf(name)}/health/ready`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
      if (ready) {
        console.log(`[cluster] ${name} runs again as pid ${now} and is ready`);
        return 0;
      }
    }
    if (Date.now() > deadline) {
      console.error(`[cluster] ${name} was not ready again within 120 s; see the cluster's output`);
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
