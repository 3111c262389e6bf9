import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

/** How many of a process's last output lines a failure to start quotes. */
const OUTPUT_TAIL_LINES = 40;

export interface LaunchOptions {
  /** After the bundle: a command of the app's own (`migrate`, `kafka-provision`). */
  args?: string[];
  /** Over this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** To node itself (`--cpu-prof`, `--inspect`), when a run needs a closer look. */
  nodeArgs?: string[];
  /** Prefixes each forwarded line; the app's folder name by default. */
  label?: string;
  /** Where its lines go, labelled; without it they are only kept for `outputTail`. */
  output?: Writable;
  /**
   * A file opened for appending that takes the output directly, unlabelled: for a process that
   * must outlive the code that started it (a test that restarts a service). No tail is kept then.
   */
  outputFd?: number;
}

export interface LaunchedProcess {
  readonly child: ChildProcess;
  /** Its last output lines, each prefixed with its label. */
  outputTail(): string;
  /** Resolves once `url` answers 200; fails early, quoting the output tail, if the process exits first. */
  ready(url: string, timeoutMs?: number): Promise<void>;
  /** Resolves with its exit code once it has exited. */
  exited(): Promise<number | null>;
  /** SIGTERM, as a platform would (the process drains and exits), SIGKILL after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Runs a built bundle (`dist/apps/<app>/main.js`) with this process's Node, the way every
 * start-up path here runs one: the test suites, `npm start`, the benchmarks and the chaos suite.
 */
export function launch(main: string, options: LaunchOptions = {}): LaunchedProcess {
  const { args = [], env = {}, nodeArgs = [], outputFd } = options;
  const child = spawn(process.execPath, [...nodeArgs, main, ...args], {
    env: { ...process.env, ...env },
    stdio: outputFd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', outputFd, outputFd],
  });
  const label = `[${options.label ?? appName(main)}]`;
  const tail: string[] = [];
  if (outputFd === undefined) {
    forwardLines(child, label, tail, options.output);
    killOnExit(child);
  }
  const exit = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  return {
    child,
    outputTail: () => tail.join('\n'),
    ready: (url, timeoutMs) => waitUntilReady(url, child, () => tail.join('\n'), timeoutMs),
    exited: () => exit,
    stop: (timeoutMs) => stopChild(child, timeoutMs),
  };
}

/** A parent that dies takes these with it; one started with `outputFd` is meant to outlive it. */
const running = new Set<ChildProcess>();

function killOnExit(child: ChildProcess): void {
  // One listener for them all: a cluster runs more children than Node's listener warning allows.
  if (!process.listeners('exit').includes(killRunning)) process.on('exit', killRunning);
  running.add(child);
  child.once('exit', () => running.delete(child));
}

function killRunning(): void {
  for (const child of running) child.kill('SIGKILL');
}

function appName(main: string): string {
  return main.split('/').at(-2) ?? main;
}

function forwardLines(child: ChildProcess, label: string, tail: string[], output: Writable | undefined): void {
  const prefix = output ? label.padEnd(12) : label;
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        output?.write(`${prefix} ${line}\n`);
        tail.push(`${label} ${line}`);
      }
      tail.splice(0, Math.max(0, tail.length - OUTPUT_TAIL_LINES));
    });
  }
}

async function waitUntilReady(url: string, child: ChildProcess, tail: () => string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${url}: the process exited (${child.exitCode ?? child.signalCode}) before it was ready; its last output:\n${tail()}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s; the process's last output:\n${tail()}`);
}

/** Also for a child started some other way: the one way every process here is stopped. */
export function stopChild(child: ChildProcess | undefined, timeoutMs = 10_000): Promise<void> {
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
