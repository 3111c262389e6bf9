// The stack's processes: each app started from its built bundle with the layout's variables, its
// output labelled, waited for until ready, stopped with SIGTERM (SIGKILL when it does not exit).
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { mainOf } from './build';
import { APPS, SERVICES, type App, type ProcessEnv, type StackLayout } from './layout';
import { ensureNats } from './machine-services';

/** Where a process's labelled lines go: a stream, or anything that writes text. */
export interface TextOutput {
  write(text: string): unknown;
}

export interface StartProcessOptions {
  output?: TextOutput;
  /**
   * A file opened for appending that takes the process's output directly, unlabelled: for a
   * process that must outlive the code that started it (a test file that restarts a service).
   */
  outputFd?: number;
  extraEnv?: Record<string, string>;
  /** For node itself (`--cpu-prof`, `--inspect`) when a run needs a closer look. */
  nodeArgs?: string[];
}

/** A started app; `outputTail` holds its last lines (absent when its output went to `outputFd`). */
export type StackProcess = ChildProcess & { outputTail?: string[] };

/** How many of a process's last output lines a start-up failure quotes. */
const OUTPUT_TAIL_LINES = 30;

function prefixLines(stream: Readable, label: string, out: TextOutput, tail: string[]): void {
  let pending = '';
  stream.on('data', (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() as string;
    for (const line of lines) {
      out.write(`${label} ${line}\n`);
      tail.push(line);
      if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
    }
  });
}

export function startProcess(app: string, env: ProcessEnv, { output = process.stdout, outputFd, extraEnv = {}, nodeArgs = [] }: StartProcessOptions = {}): StackProcess {
  const child: StackProcess = spawn(process.execPath, [...nodeArgs, mainOf(app)], {
    env: { ...process.env, ...extraEnv, ...env },
    stdio: outputFd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', outputFd, outputFd],
  });
  if (outputFd !== undefined) return child;
  const label = `[${app}]`.padEnd(12);
  // Kept so that a process that dies while starting says why, even when `output` is a file.
  const tail: string[] = [];
  child.outputTail = tail;
  prefixLines(child.stdout as Readable, label, output, tail);
  prefixLines(child.stderr as Readable, label, output, tail);
  return child;
}

/** Resolves once `url`/health/ready answers 200; fails early, quoting its output, when `child` exits first. */
export async function waitUntilReady(url: string, child: StackProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      const tail = (child.outputTail ?? []).join('\n');
      throw new Error(`${url} exited with code ${child.exitCode} before it was ready; its last output:\n${tail}`);
    }
    try {
      const response = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url}/health/ready did not answer 200 within ${timeoutMs / 1000} s`);
}

/** SIGTERM, then SIGKILL after `timeoutMs`; resolves once the process has exited. */
export function stopProcess(child: ChildProcess | undefined, timeoutMs = 10_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** A started stack: its processes by app, and how to stop them all. */
export interface RunningStack {
  processes: Partial<Record<App, StackProcess>>;
  stop(): Promise<void>;
}

/** Starts the services, then the gateway, each once the ones before it are ready. */
export async function startStack(layout: StackLayout, options: StartProcessOptions = {}): Promise<RunningStack> {
  if (layout.envs.gateway.RPC_TRANSPORT === 'nats') await ensureNats(layout.nats);
  const processes: RunningStack['processes'] = {};
  const stop = async () => {
    for (const app of [...APPS].reverse()) await stopProcess(processes[app]);
  };
  try {
    await Promise.all(
      SERVICES.map(async (name) => {
        const child = startProcess(name, layout.envs[name], options);
        processes[name] = child;
        await waitUntilReady(layout.urls[name], child);
      }),
    );
    const gateway = startProcess('gateway', layout.envs.gateway, options);
    processes.gateway = gateway;
    await waitUntilReady(layout.urls.gateway, gateway);
  } catch (error) {
    await stop();
    throw error;
  }
  return { processes, stop };
}
