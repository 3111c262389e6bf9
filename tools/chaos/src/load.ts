// Continuous order load through the gateway, placed with @petstore/client as a shop places them:
// every order carries an Idempotency-Key the client keeps across its retries (503, refused
// connections, 504, connections cut after sending, 409 while the first attempt still runs), so
// "accepted" is exact: an order counts once the client returned it. A placement the client gave
// up on while its outcome was unknown is placed again with the same key until it is definite.
import { randomUUID } from 'node:crypto';
import { createPetstoreClient, PetstoreApiError, type PetstoreClient } from '@petstore/client';
import { sleep } from '@petstore/backoff';
import type { Order } from './invariants';

const REQUEST_TIMEOUT_MS = 10_000;

/** An answer of the API; a transport failure is status 0 with its code in `error`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's bodies, as each caller expects them
export interface Answer<T = any> {
  status: number;
  body?: T;
  error?: string;
}

export class Api {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  /** Answers `{ status, body }`; a transport failure is `{ status: 0, error }` with its code. */
  async call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}, { timeoutMs = REQUEST_TIMEOUT_MS } = {}): Promise<Answer> {
    try {
      const response = await fetch(`${this.baseUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${this.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    } catch (error) {
      const failure = error as { cause?: { code?: string }; name?: string };
      return { status: 0, error: failure.cause?.code ?? failure.name ?? String(error) };
    }
  }

  /** Like `call`, but insists on `expected` (bounded retries while the stack recovers). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's bodies, as each caller expects them
  async must(method: string, url: string, body?: unknown, expected = [200, 201], attempts = 60): Promise<any> {
    let last: Answer = { status: 0 };
    for (let i = 0; i < attempts; i += 1) {
      last = await this.call(method, url, body);
      if (expected.includes(last.status)) return last.body;
      await sleep(500);
    }
    throw new Error(`${method} ${url} → ${last.status} ${JSON.stringify(last.body ?? last.error)}`);
  }

  /** Every order of one pet, following the keyset pages. */
  async ordersOf(petId: number, status?: string): Promise<Order[]> {
    const orders: Order[] = [];
    for (let after = 0; ; ) {
      const page: Order[] = await this.must('GET', `/v1/store/orders?petId=${petId}${status ? `&status=${status}` : ''}&limit=100&after=${after}`, undefined, [200]);
      orders.push(...page);
      if (page.length < 100) return orders;
      after = page[page.length - 1].id;
    }
  }
}

/** Orders of `pets` still `placed` (up to a page of 100 a pet). */
export async function placedCount(api: Api, pets: StockedPet[]): Promise<number> {
  const pages = await Promise.all(pets.map((pet) => api.call('GET', `/v1/store/orders?petId=${pet.id}&status=placed&limit=100`)));
  return pages.reduce((sum, page) => sum + (page.status === 200 ? page.body.length : 0), 0);
}

/** Seconds (to a tenth) until no order of `pets` is left `placed`, asked every 500 ms; null if some still are after `withinMs`. */
export async function secondsUntilDecided(api: Api, pets: StockedPet[], withinMs: number): Promise<number | null> {
  const from = Date.now();
  while (Date.now() - from < withinMs) {
    if ((await placedCount(api, pets)) === 0) return Math.round((Date.now() - from) / 100) / 10;
    await sleep(500);
  }
  return null;
}

/** A pet the load orders from, with the units it was stocked with. */
export interface StockedPet {
  id: number;
  stock: number;
}

interface NewOrder {
  petId: number;
  quantity: number;
}

export type StatusCounts = Record<string, number>;

export class OrderLoad {
  readonly readStatuses: StatusCounts = {}; // the reads' answers by status
  offered = 0;
  readonly accepted = new Map<number, NewOrder>(); // order id → what was ordered
  refused = 0; // the client gave up, and nothing was placed (503 or never sent to the end)
  readonly statuses: StatusCounts = {}; // every attempt's answer by status, transport failures as "no answer"
  readonly samples: Record<string, string> = {}; // the first answer of each status that was not 2xx: its code, or why nothing came
  private readonly unknown = new Map<string, NewOrder>(); // idempotency key → body, outcome not known yet
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly client: PetstoreClient;
  private timer?: NodeJS.Timeout;

  /**
   * `pets` to order from; `rate`: orders offered per second; `reads`: with each order, also read
   * a pet (catalog) and its stock (inventory), so every tier serves requests.
   */
  constructor(
    private readonly api: Api,
    readonly pets: StockedPet[],
    private readonly options: { rate: number; reads?: boolean },
  ) {
    this.client = createPetstoreClient({
      baseUrl: api.baseUrl,
      apiKey: api.apiKey,
      retry: { attemptTimeoutMs: REQUEST_TIMEOUT_MS, deadlineMs: 20_000 },
      onAttempt: (attempt) =>
        attempt.operation === 'placeOrder' &&
        this.count(this.statuses, attempt.status === undefined ? { status: 0, error: attempt.code } : { status: attempt.status, body: attempt.code && { code: attempt.code } }),
    });
  }

  start(): void {
    const intervalMs = 1000 / this.options.rate;
    this.timer = setInterval(() => {
      if (this.inFlight.size >= 200) return; // the stack is stalled: do not pile up sockets
      const pet = this.pets[Math.floor(Math.random() * this.pets.length)];
      this.offer({ petId: pet.id, quantity: 1 + Math.floor(Math.random() * 3) });
      if (this.options.reads) for (const url of [`/v1/pets/${pet.id}`, `/v1/store/inventory/${pet.id}`]) this.read(url);
    }, intervalMs);
  }

  private read(url: string): void {
    const task = this.api.call('GET', url).then((answer) => this.count(this.readStatuses, answer));
    const tracked: Promise<unknown> = task.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  /** Counts `answer` under its status; keeps the first of each failing status as a sample. */
  private count(statuses: StatusCounts, answer: Answer): string {
    const label = answer.status === 0 ? 'no answer' : String(answer.status);
    statuses[label] = (statuses[label] ?? 0) + 1;
    if (!/^2/.test(label)) {
      this.samples[label] ??= answer.body?.code ? `${answer.body.code}${answer.body.message ? `: ${answer.body.message}` : ''}` : (answer.error ?? JSON.stringify(answer.body));
    }
    return label;
  }

  /** Every answer of the load that was not a success (2xx), orders and reads: what a client saw fail. */
  get failedAnswers(): number {
    return [this.statuses, this.readStatuses]
      .flatMap((statuses) => Object.entries(statuses))
      .filter(([status]) => !/^2/.test(status))
      .reduce((sum, [, count]) => sum + count, 0);
  }

  private offer(body: NewOrder): void {
    this.offered += 1;
    const task: Promise<unknown> = this.place(randomUUID(), body).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  private async place(key: string, body: NewOrder): Promise<void> {
    try {
      const order = await this.client.placeOrder(body, { idempotencyKey: key });
      this.accepted.set(order.id, { petId: body.petId, quantity: body.quantity });
      this.unknown.delete(key);
    } catch (error) {
      const failure = error as { outcomeUnknown?: boolean; maybeSent?: boolean; status?: number };
      if (failure.outcomeUnknown) {
        this.unknown.set(key, body); // maybe carried out (or still running): ask again with the same key
      } else if (!this.unknown.has(key) && (failure.maybeSent === false || failure.status === 503 || failure.status === 429)) {
        this.refused += 1; // not carried out: a client would offer it again as a new order, if at all
      } else if (error instanceof PetstoreApiError) {
        this.unknown.delete(key); // a definite refusal (4xx) or a bug (500), counted in statuses
      } else {
        this.unknown.set(key, body);
      }
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.inFlight]);
  }

  /** Sends every order whose outcome is unknown again with its key, until each is definite (bounded). */
  async resolveUnknown(deadlineMs: number): Promise<number> {
    while (this.unknown.size > 0 && Date.now() < deadlineMs) {
      await Promise.all([...this.unknown].map(([key, body]) => this.place(key, body)));
      if (this.unknown.size > 0) await sleep(500);
    }
    return this.unknown.size;
  }

  /** 5xx answers other than 503/504 (a bug: a fault must never show as one). */
  get serverErrors(): number {
    return Object.entries(this.statuses)
      .filter(([status]) => /^5/.test(status) && status !== '503' && status !== '504')
      .reduce((sum, [, count]) => sum + count, 0);
  }
}
