import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { Order as OrderView, OrderStatus, RejectionReason, WaitOutcome } from '@petstore/contracts';
import { executePrepared, ListeningSession } from '@petstore/database';
import { statusView } from './order.view';

/**
 * Every replica listens here; whichever one records a decision announces the orders, each as
 * `id:status[:reason]` (a held answer is then built without reading the order again), or as
 * `id` alone when the answer is to be read.
 */
const DECIDED_CHANNEL = 'petstore_order_decided';
/** NOTIFY payloads stay below PostgreSQL's 8000-byte limit. */
const MAX_PAYLOAD = 7900;
/** An id below 2^53 (16 digits), `:rejected:`, the longest reason and a comma. */
const ENTRIES_PER_PAYLOAD = Math.floor(MAX_PAYLOAD / 48);

/** What an announcement says of an order: where it went, when it says so. */
interface Announced {
  status: OrderStatus;
  rejectionReason?: RejectionReason;
}

/**
 * A CTE body that announces the orders in `relation` (a CTE of the same statement with `id`,
 * `status` and `rejection_reason` columns), for a statement that changes orders and tells the
 * waiting replicas in one go. Reference it (e.g. `(select count(*) from <name>)`), or
 * PostgreSQL skips it.
 */
export function announcement(relation: string): { sql: string; params: unknown[] } {
  return {
    sql: `select pg_notify(?, string_agg(concat_ws(':', id, status, rejection_reason), ','))
            from (select id, status, rejection_reason, (row_number() over () - 1) / ${ENTRIES_PER_PAYLOAD} as part
                    from ${relation}) entries group by part`,
    params: [DECIDED_CHANNEL],
  };
}
/**
 * How many answers one replica holds at most (MAX_HELD_ANSWERS). Each costs a timer and a
 * closure (well under a kilobyte), so the bound keeps memory flat; past it an answer is given
 * at once, without the preference applied.
 */
export const MAX_HELD_ANSWERS = Symbol('MAX_HELD_ANSWERS');

type Release = (announced?: Announced) => void;

/**
 * `Prefer: wait` (API.md §9): answers held until their order leaves `placed` or the wait
 * elapses. A decision or cancellation, on whichever replica commits it, sends the order ids on
 * a PostgreSQL channel; each replica listens on one connection of its own and releases what
 * it holds for those ids. Nothing polls: a held answer costs a timer until then.
 */
@Injectable()
export class DecisionWaits implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DecisionWaits.name);
  private readonly held = new Map<number, Set<Release>>();
  private count = 0;
  private stopped = false;
  /** Held answers end with their wait while it reconnects. */
  private readonly session: ListeningSession;

  constructor(
    orm: MikroORM,
    @Inject(MAX_HELD_ANSWERS) private readonly maxHeld: number,
  ) {
    this.session = new ListeningSession({
      url: orm.config.getClientUrl(),
      applicationName: 'orders decision waits',
      channel: DECIDED_CHANNEL,
      onNotification: (payload) => this.released(payload),
      onError: (error) => this.logger.warn(`Listening for decisions: ${error.message}`),
    });
  }

  onApplicationBootstrap(): void {
    this.session.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const releases of this.held.values()) for (const release of releases) release();
    await this.session.stop();
  }

  /**
   * The order once it has left `placed`, or as it is when `seconds` have passed. `read` gives
   * the order as it is now; it is called after this replica is listening for the order, so a
   * decision cannot slip between the read and the wait.
   */
  async until(
    orderId: number,
    seconds: number,
    read: () => Promise<OrderView>,
    known?: OrderView,
  ): Promise<{ order: OrderView } & WaitOutcome> {
    if (this.count >= this.maxHeld || this.stopped) return { order: known ?? (await read()) };
    let release!: Release;
    const released = new Promise<Announced | undefined>((resolve) => (release = resolve));
    const timer = setTimeout(release, seconds * 1000);
    this.hold(orderId, release);
    try {
      const now = known ?? (await read());
      if (now.status !== 'placed') return { order: now, waitApplied: seconds };
      const announced = await released;
      return { order: announced ? withStatus(now, announced) : await read(), waitApplied: seconds };
    } finally {
      clearTimeout(timer);
      this.unhold(orderId, release);
    }
  }

  /**
   * Tells every replica that these orders left `placed`. Call inside the transaction that
   * changes them: PostgreSQL delivers the notification when it commits, and not at all if it
   * rolls back.
   */
  async announce(em: EntityManager, orderIds: number[]): Promise<void> {
    for (const payload of chunks(orderIds.map(String), MAX_PAYLOAD)) {
      await executePrepared(em, 'select pg_notify(?, ?)', [DECIDED_CHANNEL, payload]);
    }
  }

  private hold(orderId: number, release: Release): void {
    let releases = this.held.get(orderId);
    if (!releases) this.held.set(orderId, (releases = new Set()));
    releases.add(release);
    this.count += 1;
  }

  private unhold(orderId: number, release: Release): void {
    const releases = this.held.get(orderId);
    if (!releases?.delete(release)) return;
    this.count -= 1;
    if (releases.size === 0) this.held.delete(orderId);
  }

  private released(payload: string | undefined): void {
    for (const entry of (payload ?? '').split(',')) {
      const [id, status, rejectionReason] = entry.split(':');
      const releases = this.held.get(Number(id));
      if (!releases) continue;
      const announced = status
        ? { status: status as OrderStatus, ...(rejectionReason && { rejectionReason: rejectionReason as RejectionReason }) }
        : undefined;
      for (const release of releases) release(announced);
    }
  }
}

/** The order a held answer saw as placed, as the announcement says it is now. */
function withStatus(order: OrderView, { status, rejectionReason }: Announced): OrderView {
  const { rejectionReason: _before, ...rest } = order;
  return { ...rest, ...statusView(status, rejectionReason) };
}

/** Comma-joined ids in payloads of at most `max` characters. */
function chunks(ids: string[], max: number): string[] {
  const payloads: string[] = [];
  let current = '';
  for (const id of ids) {
    if (current && current.length + 1 + id.length > max) {
      payloads.push(current);
      current = '';
    }
    current = current ? `${current},${id}` : id;
  }
  if (current) payloads.push(current);
  return payloads;
}
