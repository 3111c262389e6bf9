// The scaled stack's processes: every replica and the balancer in front of the gateways.
import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { ensureNats, ensureRedis } from '../machine-services';
import { startProcess, stopProcess, waitUntilReady, type StackProcess } from '../processes';
import type { ClusterLayout } from './cluster-layout';
import { startBalancer, waitForBalancer } from './haproxy';

/** The cluster's own NATS server and Redis. */
export async function ensureNatsAndRedis(layout: ClusterLayout): Promise<void> {
  await ensureNats(layout.nats);
  await ensureRedis(layout.redis);
}

/** A started cluster: its replicas by name; `start` and `stop` act on one replica by name. */
export interface RunningCluster {
  processes: Map<string, StackProcess>;
  start(name: string, env?: Record<string, string>): Promise<StackProcess>;
  stopAll(): Promise<void>;
  balancer(): ChildProcess | undefined;
}

/**
 * Starts every replica (the services side by side, then the gateways) and the balancer. `start`
 * and `stop` act on one replica by name; `stopAll` takes everything down, gateways first.
 */
export async function startCluster(layout: ClusterLayout, { output = process.stdout, extraEnv = {} }: { output?: Writable; extraEnv?: Record<string, string> } = {}): Promise<RunningCluster> {
  const processes = new Map<string, StackProcess>();
  const start = async (name: string, env: Record<string, string> = {}) => {
    const child = startProcess(name.split('-')[0], { ...layout.envOf(name), ...env }, { output, extraEnv });
    processes.set(name, child);
    await waitUntilReady(layout.urlOf(name), child, 90_000);
    return child;
  };
  let balancer: ChildProcess | undefined;
  const stopAll = async () => {
    await stopProcess(balancer);
    await Promise.all(layout.gateways.map((name) => stopProcess(processes.get(name), 20_000)));
    await Promise.all(layout.services.map((name) => stopProcess(processes.get(name), 20_000)));
  };
  try {
    await Promise.all(layout.services.map((name) => start(name)));
    await Promise.all(layout.gateways.map((name) => start(name)));
    balancer = await startBalancer(layout, { output });
    await waitForBalancer(layout);
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { processes, start, stopAll, balancer: () => balancer };
}
