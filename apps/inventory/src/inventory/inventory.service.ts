import { EntityManager, MikroORM, type FilterQuery } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { CatalogClient } from '@petstore/catalog-client';
import {
  STOCK_QUANTITY,
  boundsRule,
  withinBounds,
  type InventoryItem,
  type InventoryItemQuery,
  type ListInventoryQuery,
  type Page,
  type SetStockCommand,
} from '@petstore/contracts';
import { inStatementTransaction } from '@petstore/database';
import { DomainError, pageCursor, pageLimit, pageOf, parsePathId } from '@petstore/service-kit';
import { INVENTORY_PRODUCER } from '../config';
import { createEntries } from './entries';
import { InventoryEntry } from './inventory-entry.entity';
import { ParkedOrders } from './parked-orders';
import { toInventoryItem } from './stock-state';
import { StockBatches } from './stock-batches';

function itemNotFound(petId: string | number): DomainError {
  return new DomainError(404, 'INVENTORY_ITEM_NOT_FOUND', `Pet ${petId} has no inventory entry`);
}

/** The RPC side; each method runs in the request context the controller creates. */
@Injectable()
export class InventoryService {
  constructor(
    private readonly em: EntityManager,
    private readonly orm: MikroORM,
    private readonly catalog: CatalogClient,
    private readonly stock: StockBatches,
    private readonly parked: ParkedOrders,
  ) {}

  async list(query: ListInventoryQuery): Promise<Page<InventoryItem>> {
    const limit = pageLimit(query.limit);
    const where: FilterQuery<InventoryEntry> = { petId: { $gt: pageCursor(query.after) }, deleted: false };
    if (query.status?.length) where.status = { $in: query.status };
    const rows = await this.em.find(InventoryEntry, where, { orderBy: { petId: 'asc' }, limit: limit + 1 });
    return pageOf(rows.map(toInventoryItem), limit);
  }

  /** A pet created a moment ago has an entry at once, even before its PetCreated arrives. */
  async get({ petId: id, requestId }: InventoryItemQuery): Promise<InventoryItem> {
    const petId = parsePathId(id);
    const entry = petId === undefined ? undefined : await this.existingEntry(petId, requestId);
    if (!entry) throw itemNotFound(id);
    return toInventoryItem(entry);
  }

  async setStock({ petId: id, quantity, requestId }: SetStockCommand): Promise<InventoryItem> {
    if (!withinBounds(quantity, STOCK_QUANTITY)) {
      throw new DomainError(400, 'VALIDATION_FAILED', 'The stock count is not valid', [
        { field: 'quantity', message: boundsRule(STOCK_QUANTITY) },
      ]);
    }
    const petId = parsePathId(id);
    if (petId === undefined || !(await this.existingEntry(petId, requestId))) throw itemNotFound(id);
    return inStatementTransaction(this.orm, async (em) => {
      const batch = this.stock.of(em);
      await batch.load([petId]);
      const meta = { producer: INVENTORY_PRODUCER, correlationId: requestId };
      // Orders that waited for this pet's entry came first.
      await batch.decideParked([petId], () => meta);
      const entry = batch.entry(petId);
      if (!entry || entry.deleted) throw itemNotFound(id);
      batch.setQuantity(petId, quantity, meta);
      await batch.flush();
      return toInventoryItem(entry);
    });
  }

  /**
   * The pet's entry (not a tombstone); one the catalog knows and no event has announced yet is
   * created from the catalog's answer, asked with nothing held.
   */
  private async existingEntry(petId: number, requestId: string): Promise<InventoryEntry | undefined> {
    let entry = await this.em.findOne(InventoryEntry, petId);
    if (!entry) {
      const pet = await this.catalog.findPet(petId, requestId);
      if (!pet) return undefined;
      await createEntries(this.em, [pet]);
      this.parked.resolveSoon(); // orders for it may have come before it
      entry = await this.em.findOne(InventoryEntry, petId);
    }
    return entry && !entry.deleted ? entry : undefined;
  }
}
