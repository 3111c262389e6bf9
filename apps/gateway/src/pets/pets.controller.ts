import { Body, Controller, Delete, Get, Inject, Logger, Param, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  CatalogPatterns,
  InventoryPatterns,
  type ById,
  type CreatePetCommand,
  type InventoryItem,
  type InventoryItemQuery,
  type ListPetsQuery,
  type NewPet,
  type Page,
  type PatchPetCommand,
  type Pet,
  type PetWithCategory,
  type ReplacePetCommand,
} from '@petstore/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendPage } from '../common/paging';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { ApiError } from '../http/api-error';
import { Operation } from '../operations/operation.decorator';
import { Upstream } from '../upstream/upstream.service';
import { ListPetsQuery as ListPetsQuerySchema, NewPetSchema, PetDetailsSchema, PetPatchSchema, PetSchema, PetsSchema } from './pets.schemas';

type PetsQuery = Omit<ListPetsQuery, 'requestId'>;

export interface PetDetails extends PetWithCategory {
  inventory: { quantity: number; status: InventoryItem['status'] } | null;
}

@Controller()
export class PetsController {
  private readonly logger = new Logger('PetsController');

  constructor(
    private readonly upstream: Upstream,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('v1/pets')
  @Operation({
    operationId: 'listPets',
    tag: 'Pets',
    summary: 'List pets',
    description: 'Filters combine; ordered by id.',
    status: 200,
    query: ListPetsQuerySchema,
    response: PetsSchema,
    responseHeaders: ['Link'],
  })
  async list(@Query() query: PetsQuery, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<Pet[]> {
    const payload: ListPetsQuery = { ...query, requestId: request.id };
    const page = await this.upstream.send<Page<Pet>>('catalog', CatalogPatterns.listPets, payload);
    return sendPage(reply, request.url, page, (pet) => pet.id);
  }

  @Post('v1/pets')
  @Operation({
    operationId: 'createPet',
    tag: 'Pets',
    summary: 'Add a pet',
    description: 'Its inventory entry is created with quantity 0.',
    status: 201,
    body: NewPetSchema,
    response: PetSchema,
    responseHeaders: ['Location'],
    errors: ['UNKNOWN_CATEGORY'],
  })
  async create(@Body() pet: NewPet, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<Pet> {
    const payload: CreatePetCommand = { pet, requestId: request.id };
    const created = await this.upstream.send<Pet>('catalog', CatalogPatterns.createPet, payload);
    reply.header('location', `/v2/pets/${created.id}`);
    return created;
  }

  @Get('v1/pets/:petId')
  @Operation({
    operationId: 'getPet',
    tag: 'Pets',
    summary: 'Find a pet by id (deprecated: use GET /v2/pets/{petId})',
    status: 200,
    response: PetSchema,
    errors: ['PET_NOT_FOUND'],
    deprecation: { since: '2026-11-01T00:00:00Z', successor: '/v2/pets/{petId}' },
  })
  async get(@Param('petId') id: string, @Req() request: FastifyRequest): Promise<Pet> {
    const payload: ById = { id, requestId: request.id };
    return this.upstream.send<Pet>('catalog', CatalogPatterns.getPet, payload);
  }

  @Put('v1/pets/:petId')
  @Operation({
    operationId: 'replacePet',
    tag: 'Pets',
    summary: 'Replace a pet',
    description: 'A full replace: an omitted `status` becomes `available`.',
    status: 200,
    body: NewPetSchema,
    response: PetSchema,
    errors: ['PET_NOT_FOUND', 'UNKNOWN_CATEGORY'],
  })
  async replace(@Param('petId') id: string, @Body() pet: NewPet, @Req() request: FastifyRequest): Promise<Pet> {
    const payload: ReplacePetCommand = { id, pet, requestId: request.id };
    return this.upstream.send<Pet>('catalog', CatalogPatterns.replacePet, payload);
  }

  @Patch('v1/pets/:petId')
  @Operation({
    operationId: 'updatePet',
    tag: 'Pets',
    summary: 'Change some fields of a pet',
    description: 'Any non-empty subset of NewPet, as JSON or JSON merge patch; `null` is refused, never a removal.',
    status: 200,
    body: PetPatchSchema,
    bodyTypes: ['application/json', 'application/merge-patch+json'],
    response: PetSchema,
    errors: ['PET_NOT_FOUND', 'UNKNOWN_CATEGORY'],
  })
  async patch(@Param('petId') id: string, @Body() changes: Partial<NewPet>, @Req() request: FastifyRequest): Promise<Pet> {
    const payload: PatchPetCommand = { id, changes, requestId: request.id };
    return this.upstream.send<Pet>('catalog', CatalogPatterns.patchPet, payload);
  }

  @Delete('v1/pets/:petId')
  @Operation({
    operationId: 'deletePet',
    tag: 'Pets',
    summary: 'Delete a pet',
    description: 'Its inventory entry goes too and its open orders are cancelled; its past orders stay readable.',
    status: 204,
    errors: ['PET_NOT_FOUND'],
  })
  async delete(@Param('petId') id: string, @Req() request: FastifyRequest): Promise<void> {
    const payload: ById = { id, requestId: request.id };
    await this.upstream.send<void>('catalog', CatalogPatterns.deletePet, payload);
  }

  @Get('v2/pets/:petId')
  @Operation({
    operationId: 'getPetDetails',
    tag: 'Pets',
    summary: 'Find a pet by id, with its category and stock',
    description:
      'Successor of GET /v1/pets/{petId}. `inventory` is null before the entry exists or when the inventory service does not answer in time.',
    status: 200,
    response: PetDetailsSchema,
    errors: ['PET_NOT_FOUND'],
    stability: 'beta',
  })
  async details(@Param('petId') id: string, @Req() request: FastifyRequest): Promise<PetDetails> {
    const petQuery: ById = { id, requestId: request.id };
    const stockQuery: InventoryItemQuery = { petId: id, requestId: request.id };
    // Both at once; the stock part is optional, so its failure never fails the answer.
    const inventory = this.upstream
      .send<InventoryItem>('inventory', InventoryPatterns.getInventoryItem, stockQuery, this.config.inventoryDetailsTimeoutMs)
      .then(
        (item) => ({ quantity: item.quantity, status: item.status }),
        (error: unknown) => {
          if (!(error instanceof ApiError) || ![404, 503, 504].includes(error.status)) {
            this.logger.warn(`Inventory part of pet ${id} left out [${request.id}]: ${error instanceof Error ? error.message : String(error)}`);
          }
          return null;
        },
      );
    const pet = await this.upstream.send<PetWithCategory>('catalog', CatalogPatterns.getPetDetails, petQuery);
    return { ...pet, inventory: await inventory };
  }
}
