import createClient from 'openapi-fetch';
import { errorBody, PetstoreApiError, PetstoreConnectionError } from './errors.js';
import type { components, operations, paths } from './generated/api.js';
import { DEFAULT_RETRY_POLICY, nextLink, retryAfterMs, retryDelay, type RetryPolicy } from './retry-policy.js';

type Schemas = components['schemas'];
export type Pet = Schemas['Pet'];
export type NewPet = Schemas['NewPet'];
export type PetPatch = Schemas['PetPatch'];
export type PetDetails = Schemas['PetDetails'];
export type Category = Schemas['Category'];
export type NewCategory = Schemas['NewCategory'];
/** The seed marks no field of Order as required; the API always sends all but `shipDate` and `rejectionReason`. */
export type Order = Schemas['Order'] & Required<Pick<Schemas['Order'], 'id' | 'petId' | 'quantity' | 'status' | 'complete'>>;
export type NewOrder = Schemas['NewOrder'];
export type OrderFulfilment = Schemas['OrderFulfilment'];
export type InventoryItem = Schemas['InventoryItem'];
export type InventoryUpdate = Schemas['InventoryUpdate'];
export type ListPetsQuery = NonNullable<operations['listPets']['parameters']['query']>;
export type ListCategoriesQuery = NonNullable<operations['listCategories']['parameters']['query']>;
export type ListOrdersQuery = NonNullable<operations['listOrders']['parameters']['query']>;
export type ListInventoryQuery = NonNullable<operations['listInventory']['parameters']['query']>;

/** What one attempt of a call came to, for a caller's counters and logs. */
export interface Attempt {
  operation: string;
  /** The answer's status; `undefined` when no answer came. */
  status?: number;
  /** The Error's code, or why no answer came (`ECONNREFUSED`, `TimeoutError`, ...). */
  code?: string;
  /** Another attempt follows. */
  willRetry: boolean;
}

export interface PetstoreClientOptions {
  /** The gateway's origin, such as `http://localhost:3000`. */
  baseUrl: string;
  apiKey: string;
  /** Overrides of the retry policy (backoff, overall deadline, one attempt's time). */
  retry?: Partial<RetryPolicy>;
  /** Called after each attempt of every call. */
  onAttempt?: (attempt: Attempt) => void;
  /** Another fetch (a proxy agent, a test double); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface PlaceOrderOptions extends CallOptions {
  /** The key of this placement; one is generated when absent. Every retry sends the same. */
  idempotencyKey?: string;
  /** `Prefer: wait=<seconds>` (1–10): the answer waits for the decision (approved, rejected or cancelled). */
  wait?: number;
}

export interface GetOrderOptions extends CallOptions {
  wait?: number;
}

/** Connection failures that happen before the request leaves: nothing was sent, so any call may be retried. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string; errors?: Array<{ code?: string }> } })?.cause;
  return cause?.code ?? cause?.errors?.[0]?.code;
}

/**
 * Ids are JavaScript numbers, exact below 2^53, and the API issues and accepts no larger one
 * (its document says `maximum: 9007199254740991`). A number beyond that was rounded before the
 * client saw it: it would name another id, so it is refused before anything is sent.
 */
function exactId(field: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${field} ${value} is not an exact id: ids are integers from 1 to 2^53 − 1`);
  return value;
}

function exactIds<T extends object>(body: T, fields: ReadonlyArray<keyof T>): T {
  for (const field of fields) if (typeof body[field] === 'number') exactId(String(field), body[field] as number);
  return body;
}

function preferWait(seconds: number | undefined): string | undefined {
  return seconds === undefined ? undefined : `wait=${seconds}`;
}

/** The query of a `next` link as openapi-fetch takes it: a repeated parameter becomes an array. */
function queryOf(search: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(search.keys())) {
    const values = search.getAll(name);
    query[name] = values.length === 1 ? values[0] : values;
  }
  return query;
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', done);
      resolve();
    }, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

type Outcome = { data?: unknown; error?: unknown; response: Response };

interface Call {
  operation: string;
  /** The call may be sent again although it may have been carried out: it is idempotent, or carries an Idempotency-Key. */
  repeatable: boolean;
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Time an attempt is held on purpose (`Prefer: wait`), beyond `attemptTimeoutMs`. */
  heldMs?: number;
}

/**
 * A client of the Pet Store API that keeps its promises for the caller (API.md §4, §7, §9): order
 * placements carry an Idempotency-Key kept across retries; 503, 429 and connections refused are
 * retried; 504 and connections cut after sending are retried when the call is repeatable; every
 * retry waits a bounded exponential backoff with jitter (429: `Retry-After`) within one deadline.
 */
export class PetstoreClient {
  private readonly http: ReturnType<typeof createClient<paths>>;
  private readonly policy: RetryPolicy;
  private readonly onAttempt?: (attempt: Attempt) => void;

  constructor({ baseUrl, apiKey, retry, onAttempt, fetch }: PetstoreClientOptions) {
    this.http = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${apiKey}` }, ...(fetch && { fetch }) });
    this.policy = { ...DEFAULT_RETRY_POLICY, ...retry };
    this.onAttempt = onAttempt;
  }

  // Pets

  listPets(query: ListPetsQuery = {}, options: CallOptions = {}): AsyncIterableIterator<Pet> {
    return this.list<Pet>('listPets', '/v1/pets', query, options);
  }

  async createPet(pet: NewPet, { signal }: CallOptions = {}): Promise<Pet> {
    exactIds(pet, ['categoryId']);
    return this.call({ operation: 'createPet', repeatable: false, signal }, (attempt) => this.http.POST('/v1/pets', { body: pet, signal: attempt }));
  }

  /** @deprecated The API sunsets it (API.md §5): `getPetDetails` is its successor. */
  async getPet(petId: number, { signal }: CallOptions = {}): Promise<Pet> {
    const path = { petId: exactId('petId', petId) };
    return this.call({ operation: 'getPet', repeatable: true, signal }, (attempt) => this.http.GET('/v1/pets/{petId}', { params: { path }, signal: attempt }));
  }

  async getPetDetails(petId: number, { signal }: CallOptions = {}): Promise<PetDetails> {
    const path = { petId: exactId('petId', petId) };
    return this.call({ operation: 'getPetDetails', repeatable: true, signal }, (attempt) => this.http.GET('/v2/pets/{petId}', { params: { path }, signal: attempt }));
  }

  async replacePet(petId: number, pet: NewPet, { signal }: CallOptions = {}): Promise<Pet> {
    const path = { petId: exactId('petId', petId) };
    exactIds(pet, ['categoryId']);
    return this.call({ operation: 'replacePet', repeatable: true, signal }, (attempt) => this.http.PUT('/v1/pets/{petId}', { params: { path }, body: pet, signal: attempt }));
  }

  async updatePet(petId: number, patch: PetPatch, { signal }: CallOptions = {}): Promise<Pet> {
    const path = { petId: exactId('petId', petId) };
    exactIds(patch, ['categoryId']);
    // A merge patch sets fields to values: sending it twice changes nothing more.
    return this.call({ operation: 'updatePet', repeatable: true, signal }, (attempt) => this.http.PATCH('/v1/pets/{petId}', { params: { path }, body: patch, signal: attempt }));
  }

  async deletePet(petId: number, { signal }: CallOptions = {}): Promise<void> {
    const path = { petId: exactId('petId', petId) };
    await this.call({ operation: 'deletePet', repeatable: true, signal }, (attempt) => this.http.DELETE('/v1/pets/{petId}', { params: { path }, signal: attempt }));
  }

  // Categories

  listCategories(query: ListCategoriesQuery = {}, options: CallOptions = {}): AsyncIterableIterator<Category> {
    return this.list<Category>('listCategories', '/v1/categories', query, options);
  }

  async createCategory(category: NewCategory, { signal }: CallOptions = {}): Promise<Category> {
    return this.call({ operation: 'createCategory', repeatable: false, signal }, (attempt) => this.http.POST('/v1/categories', { body: category, signal: attempt }));
  }

  async getCategory(categoryId: number, { signal }: CallOptions = {}): Promise<Category> {
    const path = { categoryId: exactId('categoryId', categoryId) };
    return this.call({ operation: 'getCategory', repeatable: true, signal }, (attempt) => this.http.GET('/v1/categories/{categoryId}', { params: { path }, signal: attempt }));
  }

  async replaceCategory(categoryId: number, category: NewCategory, { signal }: CallOptions = {}): Promise<Category> {
    const path = { categoryId: exactId('categoryId', categoryId) };
    return this.call({ operation: 'replaceCategory', repeatable: true, signal }, (attempt) =>
      this.http.PUT('/v1/categories/{categoryId}', { params: { path }, body: category, signal: attempt }),
    );
  }

  async deleteCategory(categoryId: number, { signal }: CallOptions = {}): Promise<void> {
    const path = { categoryId: exactId('categoryId', categoryId) };
    await this.call({ operation: 'deleteCategory', repeatable: true, signal }, (attempt) => this.http.DELETE('/v1/categories/{categoryId}', { params: { path }, signal: attempt }));
  }

  // Orders

  /**
   * Places an order exactly once however many attempts it takes: every attempt carries the same
   * Idempotency-Key, and the API answers a repeat with the first answer. With `wait`, the order
   * comes back decided when the decision came within the wait.
   */
  async placeOrder(order: NewOrder, { idempotencyKey = globalThis.crypto.randomUUID(), wait, signal }: PlaceOrderOptions = {}): Promise<Order> {
    exactIds(order, ['petId']);
    const header = { 'Idempotency-Key': idempotencyKey, Prefer: preferWait(wait) };
    return this.call({ operation: 'placeOrder', repeatable: true, idempotencyKey, signal, heldMs: (wait ?? 0) * 1000 }, (attempt) =>
      this.http.POST('/v1/store/orders', { params: { header }, body: order, signal: attempt }),
    );
  }

  listOrders(query: ListOrdersQuery = {}, options: CallOptions = {}): AsyncIterableIterator<Order> {
    return this.list<Order>('listOrders', '/v1/store/orders', query, options);
  }

  async getOrder(orderId: number, { wait, signal }: GetOrderOptions = {}): Promise<Order> {
    const path = { orderId: exactId('orderId', orderId) };
    const header = { Prefer: preferWait(wait) };
    return this.call({ operation: 'getOrder', repeatable: true, signal, heldMs: (wait ?? 0) * 1000 }, (attempt) =>
      this.http.GET('/v1/store/orders/{orderId}', { params: { path, header }, signal: attempt }),
    );
  }

  /** Not repeated after a cut: a second attempt would find the order delivered (409). */
  async fulfilOrder(orderId: number, fulfilment: OrderFulfilment = { complete: true }, { signal }: CallOptions = {}): Promise<Order> {
    const path = { orderId: exactId('orderId', orderId) };
    return this.call({ operation: 'fulfilOrder', repeatable: false, signal }, (attempt) =>
      this.http.PATCH('/v1/store/orders/{orderId}', { params: { path }, body: fulfilment, signal: attempt }),
    );
  }

  /** Not repeated after a cut: a second attempt would find the order cancelled (409). */
  async cancelOrder(orderId: number, { signal }: CallOptions = {}): Promise<Order> {
    const path = { orderId: exactId('orderId', orderId) };
    return this.call({ operation: 'cancelOrder', repeatable: false, signal }, (attempt) => this.http.POST('/v1/store/orders/{orderId}/cancel', { params: { path }, signal: attempt }));
  }

  // Inventory

  listInventory(query: ListInventoryQuery = {}, options: CallOptions = {}): AsyncIterableIterator<InventoryItem> {
    return this.list<InventoryItem>('listInventory', '/v1/store/inventory', query, options);
  }

  async getInventoryItem(petId: number, { signal }: CallOptions = {}): Promise<InventoryItem> {
    const path = { petId: exactId('petId', petId) };
    return this.call({ operation: 'getInventoryItem', repeatable: true, signal }, (attempt) => this.http.GET('/v1/store/inventory/{petId}', { params: { path }, signal: attempt }));
  }

  async setStock(petId: number, update: InventoryUpdate, { signal }: CallOptions = {}): Promise<InventoryItem> {
    const path = { petId: exactId('petId', petId) };
    return this.call({ operation: 'setStock', repeatable: true, signal }, (attempt) => this.http.PUT('/v1/store/inventory/{petId}', { params: { path }, body: update, signal: attempt }));
  }

  /** Every item of a list, page after page as `Link: rel="next"` leads, fetched as the caller reads. */
  private async *list<T>(operation: string, path: string, query: object, { signal }: CallOptions): AsyncIterableIterator<T> {
    exactIds(query as { petId?: number; categoryId?: number }, ['petId', 'categoryId']);
    let next: { baseUrl?: string; path: string; query: object } | undefined = { path, query };
    while (next !== undefined) {
      const page: typeof next = next;
      const { data, response } = await this.exchange<T[]>({ operation, repeatable: true, signal }, (attempt) =>
        // The link's path is typed by the operation it came from; openapi-fetch cannot know that.
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        this.http.GET(page.path as any, { baseUrl: page.baseUrl, params: { query: page.query }, signal: attempt }),
      );
      yield* data;
      const link = nextLink(response.headers.get('link'), response.url);
      next = link && { baseUrl: link.origin, path: link.pathname, query: queryOf(link.searchParams) };
    }
  }

  private async call<T>(call: Call, attempt: (signal: AbortSignal) => Promise<Outcome>): Promise<T> {
    return (await this.exchange<T>(call, attempt)).data;
  }

  /** Runs attempts until one succeeds, one fails in a way that may not be retried, or the deadline comes. */
  private async exchange<T>({ operation, repeatable, idempotencyKey, signal, heldMs = 0 }: Call, attempt: (signal: AbortSignal) => Promise<Outcome>): Promise<{ data: T; response: Response }> {
    const { deadlineMs, attemptTimeoutMs } = this.policy;
    const endsAt = Date.now() + deadlineMs;
    const deadline = AbortSignal.timeout(deadlineMs);
    const whole = signal ? AbortSignal.any([signal, deadline]) : deadline;
    // Once an attempt may have been carried out, a later 503 or refused connection does not settle the outcome.
    let outcomeUnknown = false;
    for (let failed = 1; ; failed += 1) {
      const thisAttempt = AbortSignal.any([whole, AbortSignal.timeout(attemptTimeoutMs + heldMs)]);
      let failure: PetstoreApiError | PetstoreConnectionError;
      let retryable: boolean;
      let waitMs: number | undefined;
      try {
        const { data, error, response } = await attempt(thisAttempt);
        if (response.ok) {
          this.onAttempt?.({ operation, status: response.status, willRetry: false });
          return { data: data as T, response };
        }
        failure = new PetstoreApiError(errorBody(response.status, error, response.headers.get('x-request-id')), idempotencyKey);
        // 503 and 429: not carried out. 504: maybe carried out. 409 IDEMPOTENCY_KEY_IN_USE: the first attempt still runs.
        retryable =
          failure.status === 503 || failure.status === 429 || (repeatable && failure.status === 504) || failure.code === 'IDEMPOTENCY_KEY_IN_USE';
        if (failure.status === 429) waitMs = retryAfterMs(response.headers.get('retry-after'));
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const code = causeCode(error);
        const maybeSent = !NOT_SENT.has(code ?? '');
        const why = deadline.aborted ? `no answer within the deadline of ${deadlineMs} ms` : thisAttempt.aborted ? `no answer within ${attemptTimeoutMs + heldMs} ms` : (code ?? String(error));
        failure = new PetstoreConnectionError(`${operation}: ${why}`, { maybeSent, cause: error, idempotencyKey });
        retryable = !maybeSent || repeatable;
      }
      outcomeUnknown ||= failure.outcomeUnknown;
      failure.outcomeUnknown = outcomeUnknown;
      const delayMs = waitMs ?? retryDelay(failed, this.policy);
      const willRetry = retryable && !whole.aborted && Date.now() + delayMs < endsAt;
      this.onAttempt?.({
        operation,
        ...(failure instanceof PetstoreApiError ? { status: failure.status, code: failure.code } : { code: causeCode(failure.cause) ?? (failure.cause as Error)?.name }),
        willRetry,
      });
      if (!willRetry) throw failure;
      try {
        await pause(delayMs, whole);
      } catch {
        if (signal?.aborted) throw signal.reason;
        throw failure;
      }
    }
  }
}

export function createPetstoreClient(options: PetstoreClientOptions): PetstoreClient {
  return new PetstoreClient(options);
}
