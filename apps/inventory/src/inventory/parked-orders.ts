import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CatalogClient } from '@petstore/catalog-client';
import { causedBy, type EventEnvelope } from '@petstore/contracts';
import { executePrepared, inStatementTransaction } from '@petstore/database';
import { backoffDelay } from '@petstore/backoff';
import { TransactionHooks } from '@petstore/messaging';
import { INVENTORY_PRODUCER } from '../config';
import { createEntries, tombstoneEntries } from './entries';
import { StockBatches } from './stock-batches';

const RETRY = { initialMs: 1000, maxMs: 30_000 };

/**
 * Decides orders that came before inventory knew their pet. Usually the pet's PetCreated
 * decides them within moments; this asks the catalog for pets whose entry is still missing, so
 * that a lost race with the catalog's topic costs no more than a lookup. While the catalog does
 * not answer, it tries again with backoff (each pet on its own, nothing held meanwhile); a pet
 * the catalog no longer has gets a tombstone, which rejects its orders as UNKNOWN_PET. It runs
 * only while orders are parked: at rest it costs nothing.
 */
@Injectable()
export class ParkedOrders implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ParkedOrders.name);
  private running?: Promise<void>;
  private again = false;
  private failures = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly catalog: CatalogClient,
    private readonly stock: StockBatches,
    private readonly hooks: TransactionHooks,
  ) {}

  onApplicationBootstrap(): void {
    this.resolveSoon(); // orders parked before a restart
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** `em`'s transaction parks orders: they are resolved once it commits. */
  resolveAfterCommit(em: EntityManager): void {
    this.hooks.after(em, () => this.resolveSoon());
  }

  /** Resolves parked orders as soon as the current round (if any) is done. */
  resolveSoon(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.resolve().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.resolveSoon();
      }
    });
  }

  private async resolve(): Promise<void> {
    let unresolved = 0;
    try {
      const em = this.orm.em.fork();
      const waiting = await executePrepared<{ pet_id: string; request_id: string; has_entry: boolean }>(
        em,
        `select distinct on (p.pet_id) p.pet_id, p.event->>'correlationId' as request_id, e.pet_id is not null as has_entry
           from parked_order p left join inventory_entry e on e.pet_id = p.pet_id
          order by p.pet_id, p.seq`,
      );
      const lookups = await Promise.allSettled(
        waiting
          .filter((row) => !row.has_entry)
          .map(async (row) => {
            const petId = Number(row.pet_id);
            const pet = await this.catalog.findPet(petId, row.request_id);
            if (pet) await createEntries(em, [pet]);
            else await tombstoneEntries(em, [petId]);
          }),
      );
      unresolved = lookups.filter((lookup) => lookup.status === 'rejected').length;
      await this.decide(waiting.map((row) => Number(row.pet_id)));
    } catch (error) {
      unresolved += 1;
      this.logger.warn(`Deciding parked orders: ${(error as Error).message}`);
    }
    if (unresolved === 0) {
      this.failures = 0;
      return;
    }
    this.failures += 1;
    const delay = backoffDelay(this.failures, RETRY);
    this.logger.warn(`${unresolved} pet(s) with parked orders could not be resolved; trying again in ${delay} ms`);
    if (!this.stopped) this.timer = setTimeout(() => this.resolveSoon(), delay);
  }

  /** The parked orders of the pets that have an entry now, in one transaction. */
  private async decide(petIds: number[]): Promise<void> {
    if (petIds.length === 0) return;
    await inStatementTransaction(this.orm, async (em) => {
      const batch = this.stock.of(em);
      await batch.load(petIds);
      await batch.decideParked(petIds, (event: EventEnvelope) => causedBy(event, INVENTORY_PRODUCER));
    });
  }
}
