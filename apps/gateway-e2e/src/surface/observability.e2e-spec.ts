import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createPet, decided, placeOrder, setStock } from '../support/fixtures';
import { eventually, stackState } from '../support/stack';
import { STACK_LOG_FILE } from '../support/stack-state';

const PROCESSES = ['gateway', 'catalog', 'orders', 'inventory'] as const;
type Process = (typeof PROCESSES)[number];

/** The services serve GET /metrics on their HTTP port, the gateway on its METRICS_PORT. */
async function scrape(process: Process): Promise<string> {
  const response = await fetch(`${stackState().metricsUrls[process]}/metrics`);
  expect({ process, status: response.status }).toEqual({ process, status: 200 });
  return response.text();
}

/** The sum of the samples of `name` whose labels include `labels`. */
function sum(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key, value]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) total += Number(match[3]);
  }
  return total;
}

/** promtool's lint of an exposition: throws with its findings when it refuses it. */
function promtoolCheck(process: Process, text: string): void {
  try {
    execFileSync('promtool', ['check', 'metrics'], { input: text, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    const { stdout, stderr, code } = error as { stdout?: Buffer; stderr?: Buffer; code?: string };
    if (code === 'ENOENT') throw new Error('promtool is not installed (Debian: apt-get install prometheus); the metrics cannot be checked');
    throw new Error(`promtool refuses the metrics of ${process}:\n${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}`);
  }
}

interface LogLine {
  service: string;
  level: string;
  msg?: string;
  requestId?: string;
  correlationId?: string;
  traceId?: string;
  [field: string]: unknown;
}

/** The stack's log file: each line is a process's label, then what the process wrote. */
function stackLogLines(): { raw: string[]; json: LogLine[] } {
  const raw = readFileSync(STACK_LOG_FILE, 'utf8').split('\n').filter((line) => line.length > 0);
  const json = raw.flatMap((line) => {
    const start = line.indexOf('{');
    return start >= 0 ? [JSON.parse(line.slice(start)) as LogLine] : [];
  });
  return { raw, json };
}

describe('logs and metrics of the stack', () => {
  it('serves every process\'s metrics, which promtool accepts, and an order moves the saga\'s series', async () => {
    const before = Object.fromEntries(await Promise.all(PROCESSES.map(async (name) => [name, await scrape(name)] as const))) as Record<Process, string>;

    const pet = await createPet();
    await setStock(pet.id, 5);
    const placed = await placeOrder(pet.id, 2);
    expect(placed.status).toBe(201);
    expect(await decided(placed.body.id)).toMatchObject({ status: 'approved' });

    const after = Object.fromEntries(await Promise.all(PROCESSES.map(async (name) => [name, await scrape(name)] as const))) as Record<Process, string>;
    for (const name of PROCESSES) {
      promtoolCheck(name, after[name]);
      expect({ name, cpu: sum(after[name], 'process_cpu_seconds_total') > 0 }).toEqual({ name, cpu: true });
    }
    const moved = (process: Process, metric: string, labels: Record<string, string> = {}) => sum(after[process], metric, labels) - sum(before[process], metric, labels);

    expect({
      ordersPlaced: moved('orders', 'petstore_orders_placed_total'),
      ordersApproved: moved('orders', 'petstore_orders_decided_total', { status: 'approved' }),
      decisionsTimed: moved('orders', 'petstore_order_decision_seconds_count'),
      inventoryHandled: moved('inventory', 'petstore_consumer_events_total', { type: 'OrderPlaced', outcome: 'handled' }),
      placeAnswered: moved('orders', 'petstore_rpc_server_duration_seconds_count', { pattern: 'orders.place', status: 'ok' }),
      placeCalled: moved('gateway', 'petstore_rpc_client_duration_seconds_count', { pattern: 'orders.place', status: 'ok' }),
      placeRequests: moved('gateway', 'petstore_http_requests_total', { method: 'POST', route: '/v1/store/orders', status: '201' }),
      placeTimed: moved('gateway', 'petstore_http_request_duration_seconds_count', { method: 'POST', route: '/v1/store/orders', status: '201' }),
    }).toEqual({
      ordersPlaced: 1,
      ordersApproved: 1,
      decisionsTimed: 1,
      inventoryHandled: 1,
      placeAnswered: 1,
      placeCalled: 1,
      placeRequests: 1,
      placeTimed: 1,
    });
    // The order's events went out through both outboxes and came back in.
    expect(moved('orders', 'petstore_relay_published_events_total')).toBeGreaterThanOrEqual(1);
    expect(moved('inventory', 'petstore_relay_published_events_total')).toBeGreaterThanOrEqual(1);
    expect(moved('orders', 'petstore_consumer_events_total', { outcome: 'handled' })).toBeGreaterThanOrEqual(1);
    // The services' probes are counted by route.
    for (const name of ['catalog', 'orders', 'inventory'] as const) {
      expect({ name, probes: sum(after[name], 'petstore_http_requests_total', { route: '/health/ready', status: '200' }) > 0 }).toEqual({ name, probes: true });
    }
    // The outbox gauges are answered on each scrape.
    expect(after.orders).toMatch(/^petstore_outbox_backlog \d+$/m);
    expect(after.orders).toMatch(/^petstore_outbox_oldest_age_seconds [\d.e+-]+$/m);
  });

  it('keeps the gateway\'s metrics off its public port', async () => {
    const response = await fetch(`${stackState().gatewayUrl}/metrics`);
    expect(response.status).not.toBe(200);
    expect(await response.text()).not.toContain('petstore_');
  });

  it('writes JSON lines, without colour codes, that follow one request through three services', async () => {
    const requestId = `obs-e2e-${randomUUID()}`;
    const pet = await createPet();
    await setStock(pet.id, 1);
    const placed = await placeOrder(pet.id, 1, { 'x-request-id': requestId });
    expect(placed.headers.get('x-request-id')).toBe(requestId);
    expect(await decided(placed.body.id)).toMatchObject({ status: 'approved' });

    const ofRequest = (lines: LogLine[]) => lines.filter((line) => line.requestId === requestId);
    const services = (lines: LogLine[]) => [...new Set(ofRequest(lines).map((line) => String(line.service)))]; // an array, so a failure prints it
    // The consumers' lines may land a moment after the order reads as decided.
    await eventually(
      async () => services(stackLogLines().json),
      (seen) => ['gateway', 'orders', 'inventory'].every((service) => seen.includes(service)),
    );

    const { raw, json } = stackLogLines();
    expect(raw.filter((line) => line.includes('\u001b['))).toEqual([]);
    expect(json.filter((line) => typeof line.service !== 'string' || typeof line.level !== 'string' || typeof line['time'] !== 'string')).toEqual([]);
    const lines = ofRequest(json);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ service: 'gateway', level: 'info', method: 'POST', route: '/v1/store/orders', status: '201' }),
        expect.objectContaining({ service: 'orders', level: 'info', pattern: 'orders.place', status: 'ok' }),
        expect.objectContaining({ service: 'inventory', level: 'info', correlationId: requestId, eventType: 'OrderPlaced', eventId: expect.any(String) }),
      ]),
    );

    // With the tracing SDK on (an OTLP endpoint in the stack's environment), the lines also carry
    // the request's trace: the gateway's, the consumers' of the events it caused. (What those
    // events cause later, a pet's status recomputed, may start traces of its own.)
    if (stackState().extraEnv['OTEL_EXPORTER_OTLP_ENDPOINT']) {
      const traceId = lines.find((line) => line.service === 'gateway' && line.route === '/v1/store/orders')?.traceId;
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      const servicesInTrace = async () => [...new Set(ofRequest(stackLogLines().json).filter((line) => line.traceId === traceId).map((line) => line.service))];
      const traced = await eventually(servicesInTrace, (seen) => ['gateway', 'orders', 'inventory'].every((service) => seen.includes(service)));
      expect(traced).toEqual(expect.arrayContaining(['gateway', 'orders', 'inventory']));
    }
  });
});
