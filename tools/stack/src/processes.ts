// The stack's processes: each app started from its built bundle with the layout's variables
// (@petstore/launcher), its output labelled, waited for until ready, stopped with SIGTERM.
import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { builtAppMain, launch, stopChild, type LaunchedProcess } from '@petstore/launcher';
import { APPS, SERVICES, type App, type ProcessEnv, type StackLayout } from './layout';
import { ensureNats } from './machine-services';

export interface StartProcessOptions {
  /** Where its labelled lines go; this process's stdout by default. */
  output?: Writable;
  /**
   * A file opened for appending that takes the process's output directly, unlabelled: for a
   * process that must outlive the code that started it (a test file that restarts a service).
   */
  outputFd?: number;
  extraEnv?: Record<string, string>;
  /** For node itself (`--cpu-prof`, `--inspect`) when a run needs a closer look. */
  nodeArgs?: string[];
}

/** A started app of the stack; its `child` is the process itself (pid, signals, `exit`). */
export type StackProcess = LaunchedProcess;

/** Starts `app`'s built bundle with `env` over `extraEnv` over this process's environment. */
export function startProcess(app: string, env: ProcessEnv, { output = process.stdout, outputFd, extraEnv = {}, nodeArgs = [] }: StartProcessOptions = {}): StackProcess {
  return launch(builtAppMain(app), { env: { ...extraEnv, ...env }, nodeArgs, label: app, ...(outputFd === undefined ? { output } : { outputFd }) });
}

/** Resolves once `url`/health/ready answers 200; fails early, quoting its output, when the process exits first. */
export function waitUntilReady(url: string, started: StackProcess, timeoutMs = 60_000): Promise<void> {
  return started.ready(`${url}/health/ready`, timeoutMs);
}

/** SIGTERM, then SIGKILL after `timeoutMs`; resolves once the process has exited. */
export function stopProcess(started: StackProcess | ChildProcess | undefined, timeoutMs = 10_000): Promise<void> {
  return started && 'stop' in started ? started.stop(timeoutMs) : stopChild(started, timeoutMs);
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
        const started = startProcess(name, layout.envs[name], options);
        processes[name] = started;
        await waitUntilReady(layout.urls[name], started);
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
