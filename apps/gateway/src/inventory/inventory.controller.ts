import { Body, Controller, Get, Param, Put, Query, Req, Res } from '@nestjs/common';
import {
  InventoryPatterns,
  type InventoryItem,
  type InventoryItemQuery,
  type ListInventoryQuery,
  type Page,
  type SetStockCommand,
} from '@petstore/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendPage } from '../common/paging';
import { Operation } from '../operations/operation.decorator';
import { Upstream } from '../upstream/upstream.service';
import { InventoryItemSchema, InventoryItemsSchema, InventoryUpdateSchema, ListInventoryQuery as ListInventoryQuerySchema } from './inventory.schemas';

@Controller('v1/store/inventory')
export class InventoryController {
  constructor(private readonly upstream: Upstream) {}

  @Get()
  @Operation({
    operationId: 'listInventory',
    tag: 'Store',
    summary: 'List inventory entries',
    description: 'Ordered and paged by petId.',
    status: 200,
    query: ListInventoryQuerySchema,
    response: InventoryItemsSchema,
    responseHeaders: ['Link'],
  })
  async list(
    @Query() query: Omit<ListInventoryQuery, 'requestId'>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<InventoryItem[]> {
    const payload: ListInventoryQuery = { ...query, requestId: request.id };
    const page = await this.upstream.send<Page<InventoryItem>>('inventory', InventoryPatterns.listInventory, payload);
    return sendPage(reply, request.url, page, (item) => item.petId);
  }

  @Get(':petId')
  @Operation({
    operationId: 'getInventoryItem',
    tag: 'Store',
    summary: "Find a pet's inventory entry",
    status: 200,
    response: InventoryItemSchema,
    errors: ['INVENTORY_ITEM_NOT_FOUND'],
  })
  async get(@Param('petId') petId: string, @Req() request: FastifyRequest): Promise<InventoryItem> {
    const payload: InventoryItemQuery = { petId, requestId: request.id };
    return this.upstream.send<InventoryItem>('inventory', InventoryPatterns.getInventoryItem, payload);
  }

  @Put(':petId')
  @Operation({
    operationId: 'setStock',
    tag: 'Store',
    summary: "Set a pet's free stock count",
    description: 'The pet\'s status is recomputed: quantity > 0 → `available`; 0 → `pending` while an approved order is open, else `sold`.',
    status: 200,
    body: InventoryUpdateSchema,
    response: InventoryItemSchema,
    errors: ['INVENTORY_ITEM_NOT_FOUND'],
  })
  async set(@Param('petId') petId: string, @Body() update: { quantity: number }, @Req() request: FastifyRequest): Promise<InventoryItem> {
    const payload: SetStockCommand = { petId, quantity: update.quantity, requestId: request.id };
    return this.upstream.send<InventoryItem>('inventory', InventoryPatterns.setStock, payload);
  }
}
