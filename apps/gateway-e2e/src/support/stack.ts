import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { kafka as runKafka, startProcess, waitUntilReady } from '@petstore/stack';
import { freePort } from '@petstore/testing';
import { STACK_LOG_FILE, STACK_STATE_FILE, type StackState } from './stack-state';

export function stackState(): StackState {
  return JSON.parse(readFileSync(STACK_STATE_FILE, 'utf8')) as StackState;
}

/** Response violations Prism found, from its `sl-violations` header (request ones are the suites' deliberate mistakes). */
function responseViolations(headers: Headers): unknown[] {
  const header = headers.get('sl-violations');
  return header ? (JSON.parse(header) as Array<{ location: string[] }>).filter((violation) => violation.location[0] === 'response') : [];
}

/**
 * `fetch`, sent again once when the connection it reused was closed before the request went
 * out: Prism closes idle keep-alive connections, and such a request never reached it.
 */
export async function fetchOnce(url: string | URL | Request, init?: RequestInit): Promise<Response> {
  try {
    // A Request's body can be read once: the first try sends a copy, so that the second can send it.
    return await fetch(url instanceof Request ? url.clone() : url, init);
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
    return fetch(url, init);
  }
}

/** Throws when Prism found that the response breaks the OpenAPI document. */
export function judged(response: Response, request: string): Response {
  const violations = responseViolations(response.headers);
  if (violations.length > 0) throw new Error(`${request}: the response breaks the OpenAPI document: ${JSON.stringify(violations)}`);
  return response;
}

/** Prism judges a body that is not JSON itself instead of forwarding it, and stops at a path that does not decode. */
function prismForwards(path: string, rawBody: string | undefined): boolean {
  try {
    decodeURI(path);
    return rawBody === undefined;
  } catch {
    return false;
  }
}

/**
 * A request to the gateway with the development key (override or drop headers per call).
 * It goes through the Prism proxy, which checks the response against the OpenAPI document,
 * unless Prism could not forward it as it is.
 */
export async function api(
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; headers?: Record<string, string | undefined> } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const state = stackState();
  const headers: Record<string, string> = {};
  const merged: Record<string, string | undefined> = {
    authorization: `Bearer ${state.apiKey}`,
    ...(options.body !== undefined && { 'content-type': 'application/json' }),
    ...options.headers,
  };
  for (const [name, value] of Object.entries(merged)) if (value !== undefined) headers[name] = value;
  const response = await fetchOnce(`${prismForwards(path, options.rawBody) ? state.prismUrl : state.gatewayUrl}${path}`, {
    method,
    headers,
    body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.text();
  judged(response, `${method} ${path}`);
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** Polls a condition at a short interval: for state that converges through Kafka. */
export async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
    last = await probe();
  }
  return last;
}

/** Stops one service of the stack (SIGTERM, as an orchestrator would; SIGKILL, as a crash does). */
export async function stopService(name: string, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
  const state = stackState();
  const pid = state.pids[name];
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  process.kill(pid, 'SIGKILL');
}

/** Starts a stopped service again with the same environment and waits until it is ready. */
export async function startService(name: string): Promise<void> {
  const state = stackState();
  // Straight into the log file: a pipe read by this test file would stop being read when the file ends.
  const outputFd = openSync(STACK_LOG_FILE, 'a');
  const service = startProcess(name, state.envs[name], { extraEnv: state.extraEnv, outputFd });
  closeSync(outputFd);
  service.child.unref();
  await waitUntilReady(state.urls[name], service);
  state.pids[name] = service.child.pid as number;
  writeFileSync(STACK_STATE_FILE, JSON.stringify(state, null, 2));
}

/**
 * One more gateway of the stack, with `env` over the stack's gateway environment (its own ports
 * always), for a setting the shared gateway must not have (a tiny rate limit).
 */
export async function startExtraGateway(env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const state = stackState();
  const [httpPort, metricsPort] = [await freePort(), await freePort()];
  const outputFd = openSync(STACK_LOG_FILE, 'a');
  const gateway = startProcess('gateway', { ...state.envs['gateway'], ...env, HTTP_PORT: String(httpPort), METRICS_PORT: String(metricsPort) }, { extraEnv: state.extraEnv, outputFd });
  closeSync(outputFd);
  const url = `http://127.0.0.1:${httpPort}`;
  await waitUntilReady(url, gateway);
  return { url, stop: () => gateway.stop() };
}

/** Stops or starts the run's own Kafka broker (for fault tests). */
export function kafka(command: 'start' | 'stop'): void {
  runKafka(command, stackState().broker);
}
