// The chaos run's own stack, one process at a time: what a scenario kills, pauses and starts again.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Writable } from 'node:stream';
import { sleep } from '@petstore/backoff';
import { CACHE, startProcess, stopProcess, waitUntilReady, type KafkaBroker, type StackProcess } from '@petstore/stack';

export type Env = Record<string, string>;

/** Its own broker, because scenarios kill and pause it; ports and data dir beside the e2e one. */
export const CHAOS_KAFKA: KafkaBroker = { port: 28092, controllerPort: 28093, dataDir: path.join(CACHE, 'kafka-data-chaos') };

/** Its own three-node cluster for the scaled stack's scenarios: nodes on 28192, 28202, 28212 (controllers one above). */
export const CHAOS_CLUSTER_KAFKA = { port: 28192, dataDir: path.join(CACHE, 'kafka-cluster-chaos') };

export function brokerPid(): number {
  const pid = Number(fs.readFileSync(path.join(CHAOS_KAFKA.dataDir, 'kafka.pid'), 'utf8').trim());
  process.kill(pid, 0);
  return pid;
}

/**
 * What the chaos run needs of a layout of tools/stack: the single stack's (`envs` by app) or the
 * scaled one's (`envOf` every replica by name, and the replicas' names).
 */
export interface ChaosLayout {
  envs: Record<string, Env>;
  envOf?: (name: string) => Env;
  urls: Record<string, string>;
  kafkaSecrets?: string;
}

/**
 * The stack's processes by name (`catalog`, `orders`, `inventory`, `gateway`, and extra replicas
 * such as `inventory-2`), each started from its built bundle with the layout's environment.
 */
export class ChaosStack {
  readonly processes = new Map<string, StackProcess>();
  private readonly replicas = new Map<string, Env>();

  constructor(
    private readonly layout: ChaosLayout,
    private readonly options: { extraEnv: Env; output: Writable },
  ) {}

  envOf(name: string): Env {
    // A cluster layout (tools/stack cluster) knows every replica's environment by name.
    if (this.layout.envOf) return this.layout.envOf(name);
    const app = name.split('-')[0];
    return { ...this.layout.envs[app], ...(this.replicas.get(name) ?? {}) };
  }

  urlOf(name: string): string {
    return `http://127.0.0.1:${this.envOf(name).HTTP_PORT}`;
  }

  /** Starts `name` (with `env` on top, e.g. a fault to inject) and waits until it is ready. */
  async start(name: string, env: Env = {}): Promise<void> {
    await waitUntilReady(this.urlOf(name), this.launch(name, env), 90_000);
  }

  /** Starts `name` without waiting for it to be ready: a service that cannot be, while its broker is down. */
  launch(name: string, env: Env = {}): StackProcess {
    const app = name.split('-')[0];
    const started = startProcess(app, { ...this.envOf(name), ...env }, { output: this.options.output, extraEnv: this.options.extraEnv });
    this.processes.set(name, started);
    return started;
  }

  /** Declares a replica of `app` on its own ports (its own health and RPC listeners, the same database and group). */
  defineReplica(name: string, portShift: number): void {
    const base = this.layout.envs[name.split('-')[0]];
    this.replicas.set(name, { HTTP_PORT: String(Number(base.HTTP_PORT) + portShift), RPC_PORT: String(Number(base.RPC_PORT) + portShift) });
  }

  running(name: string): boolean {
    const child = this.processes.get(name)?.child;
    return Boolean(child && child.exitCode === null && child.signalCode === null);
  }

  /** Sends `signal`; for SIGKILL and SIGTERM, resolves once the process is gone. */
  async signal(name: string, signal: NodeJS.Signals): Promise<void> {
    const child = this.processes.get(name)?.child;
    if (!child || !this.running(name)) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    if (signal === 'SIGKILL' || signal === 'SIGTERM') {
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    }
  }

  /** Resolves with the signal that ended `name`, or null if it still runs after `ms`. */
  async exitWithin(name: string, ms: number): Promise<string | null> {
    const child = this.processes.get(name)?.child;
    if (!child || !this.running(name)) return child?.signalCode ?? `exit ${child?.exitCode}`;
    return Promise.race([
      new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`))),
      sleep(ms).then(() => null),
    ]);
  }

  /** Last resort, synchronous: SIGKILL every process still running. */
  killAll(): void {
    for (const { child } of this.processes.values()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  async stopAll(): Promise<void> {
    for (const name of [...this.processes.keys()].reverse()) await stopProcess(this.processes.get(name));
  }
}

/** The descriptors of this process open on the machine's whole-stack lock (held when it runs under `flock` of it). */
export function stackLockDescriptors(lockFile: string): number[] {
  try {
    return fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`) === lockFile;
      } catch {
        return false;
      }
    }).map(Number);
  } catch {
    return [];
  }
}

/** Runs a command and resolves with its exit code and output (never rejects). */
export function run(command: string, args: string[], { timeoutMs = 120_000 } = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output.trim() });
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, output: error.message });
    });
  });
}
