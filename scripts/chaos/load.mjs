// Continuous order load through the gateway, placed with @petstore/client as a shop places them:
// every order carries an Idempotency-Key the client keeps across its retries (503, refused
// connections, 504, connections cut after sending, 409 while the first attempt still runs), so
// "accepted" is exact: an order counts once the client returned it. A placement the client gave
// up on while its outcome was unknown is placed again with the same key until it is definite.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './processes.mjs';

const REQUEST_TIMEOUT_MS = 10_000;
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The client as its package is built (Nx rebuilds it only when its sources changed). */
function builtClient() {
  const result = spawnSync('npx', ['nx', 'build', 'client', '--outputStyle=static'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
  });
  if (result.status !== 0) throw new Error('The build of @petstore/client failed (see the messages above)');
  return import(path.join(ROOT, 'dist/libs/client/esm/index.js'));
}

const { createPetstoreClient, PetstoreApiError } = await builtClient();

export class Api {
  constructor(baseUrl, apiKey) {
    this.baseUrl = baseUrl;
    this.apiKey = apiKey;
  }

  /** Answers `{ status, body }`; a transport failure is `{ status: 0, error }` with its code. */
  async call(method, url, body, headers = {}, { timeoutMs = REQUEST_TIMEOUT_MS } = {}) {
    try {
      const response = await fetch(`${this.baseUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${this.apiKey}`, ...(body && { 'content-type': 'application/json' }), ...headers },
        body: body && JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    } catch (error) {
      return { status: 0, error: error.cause?.code ?? error.name ?? String(error) };
    }
  }

  /** Like `call`, but insists on `expected` (bounded retries while the stack recovers). */
  async must(method, url, body, expected = [200, 201], attempts = 60) {
    let last;
    for (let i = 0; i < attempts; i += 1) {
      last = await this.call(method, url, body);
      if (expected.includes(last.status)) return last.body;
      await sleep(500);
    }
    throw new Error(`${method} ${url} → ${last.status} ${JSON.stringify(last.body ?? last.error)}`);
  }

  /** Every order of one pet, following the keyset pages. */
  async ordersOf(petId, status) {
    const orders = [];
    for (let after = 0; ; ) {
      const page = await this.must('GET', `/v1/store/orders?petId=${petId}${status ? `&status=${status}` : ''}&limit=100&after=${after}`, undefined, [200]);
      orders.push(...page);
      if (page.length < 100) return orders;
      after = page[page.length - 1].id;
    }
  }
}

export class OrderLoad {
  /**
   * `pets`: [{ id }] to order from; `rate`: orders offered per second; `reads`: with each order,
   * also read a pet (catalog) and its stock (inventory), so every tier serves requests.
   */
  constructor(api, pets, { rate, reads = false }) {
    this.api = api;
    this.pets = pets;
    this.rate = rate;
    this.reads = reads;
    this.readStatuses = {}; // the reads' answers by status
    this.offered = 0;
    this.accepted = new Map(); // order id → { petId, quantity }
    this.refused = 0; // the client gave up, and nothing was placed (503 or never sent to the end)
    this.statuses = {}; // every attempt's answer by status, transport failures as "no answer"
    this.samples = {}; // the first answer of each status that was not 2xx: its code, or why nothing came
    this.unknown = new Map(); // idempotency key → body, outcome not known yet
    this.inFlight = new Set();
    this.client = createPetstoreClient({
      baseUrl: api.baseUrl,
      apiKey: api.apiKey,
      retry: { attemptTimeoutMs: REQUEST_TIMEOUT_MS, deadlineMs: 20_000 },
      onAttempt: (attempt) => attempt.operation === 'placeOrder' && this.count(this.statuses, attempt.status === undefined ? { status: 0, error: attempt.code } : { status: attempt.status, body: attempt.code && { code: attempt.code } }),
    });
  }

  start() {
    const intervalMs = 1000 / this.rate;
    this.timer = setInterval(() => {
      if (this.inFlight.size >= 200) return; // the stack is stalled: do not pile up sockets
      const pet = this.pets[Math.floor(Math.random() * this.pets.length)];
      this.offer({ petId: pet.id, quantity: 1 + Math.floor(Math.random() * 3) });
      if (this.reads) for (const url of [`/v1/pets/${pet.id}`, `/v1/store/inventory/${pet.id}`]) this.read(url);
    }, intervalMs);
  }

  read(url) {
    const task = this.api.call('GET', url).then((answer) => this.count(this.readStatuses, answer));
    const tracked = task.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  /** Counts `answer` under its status; keeps the first of each failing status as a sample. */
  count(statuses, answer) {
    const label = answer.status === 0 ? 'no answer' : String(answer.status);
    statuses[label] = (statuses[label] ?? 0) + 1;
    if (!/^2/.test(label)) this.samples[label] ??= answer.body?.code ? `${answer.body.code}${answer.body.message ? `: ${answer.body.message}` : ''}` : (answer.error ?? JSON.stringify(answer.body));
    return label;
  }

  /** Every answer of the load that was not a success (2xx), orders and reads: what a client saw fail. */
  get failedAnswers() {
    return [this.statuses, this.readStatuses]
      .flatMap((statuses) => Object.entries(statuses))
      .filter(([status]) => !/^2/.test(status))
      .reduce((sum, [, count]) => sum + count, 0);
  }

  offer(body) {
    this.offered += 1;
    const task = this.place(randomUUID(), body).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  async place(key, body) {
    try {
      const order = await this.client.placeOrder(body, { idempotencyKey: key });
      this.accepted.set(order.id, { petId: body.petId, quantity: body.quantity });
      this.unknown.delete(key);
    } catch (error) {
      if (error.outcomeUnknown) {
        this.unknown.set(key, body); // maybe carried out (or still running): ask again with the same key
      } else if (!this.unknown.has(key) && (error.maybeSent === false || error.status === 503 || error.status === 429)) {
        this.refused += 1; // not carried out: a client would offer it again as a new order, if at all
      } else if (error instanceof PetstoreApiError) {
        this.unknown.delete(key); // a definite refusal (4xx) or a bug (500), counted in statuses
      } else {
        this.unknown.set(key, body);
      }
    }
  }

  async stop() {
    clearInterval(this.timer);
    await Promise.all([...this.inFlight]);
  }

  /** Sends every order whose outcome is unknown again with its key, until each is definite (bounded). */
  async resolveUnknown(deadlineMs) {
    while (this.unknown.size > 0 && Date.now() < deadlineMs) {
      await Promise.all([...this.unknown].map(([key, body]) => this.place(key, body)));
      if (this.unknown.size > 0) await sleep(500);
    }
    return this.unknown.size;
  }

  /** Orders of the load's pets that no placement returned: an order placed twice, or one its client never learnt of. */
  unanswered(orders) {
    return orders.filter((order) => !this.accepted.has(order.id)).length;
  }

  /** 5xx answers other than 503/504 (a bug: a fault must never show as one). */
  get serverErrors() {
    return Object.entries(this.statuses)
      .filter(([status]) => /^5/.test(status) && status !== '503' && status !== '504')
      .reduce((sum, [, count]) => sum + count, 0);
  }
}
