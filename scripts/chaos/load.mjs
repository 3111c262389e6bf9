// Continuous order load through the gateway, as a careful client sends it: every order carries an
// Idempotency-Key, and one whose outcome is unknown (504, a connection cut after sending) is sent
// again with the same key until the answer is definite. So "accepted" is exact: an order counts
// once it has been answered 201, and a 503 (not carried out) is a refusal.
import { randomUUID } from 'node:crypto';
import { sleep } from './processes.mjs';

const REQUEST_TIMEOUT_MS = 10_000;
/** Connection errors that mean the request never reached a server, so it was not carried out. */
const NOT_SENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);

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
    this.refused = 0; // 503, or never sent
    this.statuses = {}; // every answer by status, transport failures as "no answer"
    this.samples = {}; // the first answer of each status that was not 2xx: its code, or why nothing came
    this.unknown = new Map(); // idempotency key → body, outcome not known yet
    this.inFlight = new Set();
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
    if (!/^2/.test(label)) this.samples[label] ??= answer.body?.code ? `${answer.body.code}: ${answer.body.message}` : (answer.error ?? JSON.stringify(answer.body));
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
    const task = this.send(randomUUID(), body, true).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  async send(key, body, firstAttempt) {
    const answer = await this.api.call('POST', '/v1/store/orders', body, { 'idempotency-key': key });
    const label = this.count(this.statuses, answer);
    if (answer.status === 201) {
      this.accepted.set(answer.body.id, { petId: body.petId, quantity: body.quantity });
      this.unknown.delete(key);
    } else if (firstAttempt && (answer.status === 503 || NOT_SENT.has(answer.error))) {
      this.refused += 1; // not carried out: a client would retry it as a new order, if at all
    } else if (answer.status === 0 || answer.status === 503 || answer.status === 504 || answer.status === 409) {
      this.unknown.set(key, body); // maybe carried out (or still running): ask again with the same key
    } else {
      this.unknown.delete(key); // a definite refusal (4xx) or a bug (500), counted in statuses
    }
  }

  async stop() {
    clearInterval(this.timer);
    await Promise.all([...this.inFlight]);
  }

  /** Sends every order whose outcome is unknown again with its key, until each is definite (bounded). */
  async resolveUnknown(deadlineMs) {
    while (this.unknown.size > 0 && Date.now() < deadlineMs) {
      await Promise.all([...this.unknown].map(([key, body]) => this.send(key, body, false)));
      if (this.unknown.size > 0) await sleep(500);
    }
    return this.unknown.size;
  }

  /** 5xx answers other than 503/504 (a bug: a fault must never show as one). */
  get serverErrors() {
    return Object.entries(this.statuses)
      .filter(([status]) => /^5/.test(status) && status !== '503' && status !== '504')
      .reduce((sum, [, count]) => sum + count, 0);
  }
}
