import { Controller, Logger, Req, Res } from '@nestjs/common';
import { CatalogRpc, InventoryRpc, type ListPetsQuery, type NewPet } from '@petstore/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../config';
import { InjectConfig } from '../config.provider';
import { ApiError } from '../http/api-error';
import { created, Endpoint, paged, type Operation, type PathId } from '../http/operation';
import { Upstream } from '../upstream/upstream';
import { ListPetsQuery as ListPetsQuerySchema, NewPetSchema, PetDetailsSchema, PetPatchSchema, PetSchema, PetsSchema } from './pets.schemas';

const list: Operation = {
  route: 'GET /v1/pets', operationId: 'listPets', status: 200, query: ListPetsQuerySchema, response: PetsSchema, pagedBy: 'id',
  summary: 'List pets',
  description: 'Filters combine; ordered by id.',
};
const create: Operation = {
  route: 'POST /v1/pets', operationId: 'createPet', status: 201, body: NewPetSchema, response: PetSchema,
  summary: 'Add a pet',
  description: 'Its inventory entry is created with quantity 0.',
  errors: ['UNKNOWN_CATEGORY'],
  location: (pet) => `/v2/pets/${pet.id}`,
};
const get: Operation = {
  route: 'GET /v1/pets/:petId', operationId: 'getPet', status: 200, response: PetSchema,
  summary: 'Find a pet by id (deprecated: use GET /v2/pets/{petId})',
  description:
    'Deprecated since 2026-11-01 in favour of GET /v2/pets/{petId}. Every response carries `Deprecation`, `Sunset` and a `Link` to the successor; ' +
    'after the sunset instant (`x-sunset`) the operation answers 410 `ENDPOINT_SUNSET`.',
  errors: ['PET_NOT_FOUND'],
  deprecation: { since: '2026-11-01T00:00:00Z', successor: '/v2/pets/{petId}' },
};
const replace: Operation = {
  route: 'PUT /v1/pets/:petId', operationId: 'replacePet', status: 200, body: NewPetSchema, response: PetSchema,
  summary: 'Replace a pet',
  description: 'A full replace: an omitted `status` becomes `available`.',
  errors: ['PET_NOT_FOUND', 'UNKNOWN_CATEGORY'],
};
const patch: Operation = {
  route: 'PATCH /v1/pets/:petId', operationId: 'updatePet', status: 200, body: PetPatchSchema, bodyTypes: ['application/json', 'application/merge-patch+json'], response: PetSchema,
  summary: 'Change some fields of a pet',
  description: 'Any non-empty subset of NewPet, as JSON or JSON merge patch; `null` is refused, never a removal.',
  errors: ['PET_NOT_FOUND', 'UNKNOWN_CATEGORY'],
};
const remove: Operation = {
  route: 'DELETE /v1/pets/:petId', operationId: 'deletePet', status: 204,
  summary: 'Delete a pet',
  description: 'Its inventory entry goes too and its open orders are cancelled; its past orders stay readable.',
  errors: ['PET_NOT_FOUND'],
};
const details: Operation = {
  route: 'GET /v2/pets/:petId', operationId: 'getPetDetails', status: 200, response: PetDetailsSchema, stability: 'beta',
  summary: 'Find a pet by id, with its category and stock',
  description: 'Successor of GET /v1/pets/{petId}. `inventory` is null before the entry exists or when the inventory service does not answer in time.',
  errors: ['PET_NOT_FOUND'],
};

/** Pets, in the catalog service (`/v1/pets`, and the details of `/v2/pets/{petId}` with the inventory service). */
@Controller()
export class PetsController {
  private readonly logger = new Logger('Pets');

  constructor(
    private readonly upstream: Upstream,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  @Endpoint(list)
  async list(@Req() request: FastifyRequest<{ Querystring: Omit<ListPetsQuery, 'requestId'> }>, @Res({ passthrough: true }) reply: FastifyReply) {
    return paged(list, request, reply, await this.upstream.call(CatalogRpc.listPets, { ...request.query, requestId: request.id }));
  }

  @Endpoint(create)
  async create(@Req() request: FastifyRequest<{ Body: NewPet }>, @Res({ passthrough: true }) reply: FastifyReply) {
    return created(create, reply, await this.upstream.call(CatalogRpc.createPet, { pet: request.body, requestId: request.id }));
  }

  @Endpoint(get)
  get(@Req() request: PathId<'petId'>) {
    return this.upstream.call(CatalogRpc.getPet, { id: request.params.petId, requestId: request.id });
  }

  @Endpoint(replace)
  replace(@Req() request: PathId<'petId'> & FastifyRequest<{ Body: NewPet }>) {
    return this.upstream.call(CatalogRpc.replacePet, { id: request.params.petId, pet: request.body, requestId: request.id });
  }

  @Endpoint(patch)
  patch(@Req() request: PathId<'petId'> & FastifyRequest<{ Body: Partial<NewPet> }>) {
    return this.upstream.call(CatalogRpc.patchPet, { id: request.params.petId, changes: request.body, requestId: request.id });
  }

  @Endpoint(remove)
  async remove(@Req() request: PathId<'petId'>): Promise<void> {
    await this.upstream.call(CatalogRpc.deletePet, { id: request.params.petId, requestId: request.id });
  }

  @Endpoint(details)
  async details(@Req() request: PathId<'petId'>) {
    const id = request.params.petId;
    // Both at once; the stock part is optional, so its failure never fails the answer.
    const inventory = this.upstream.call(InventoryRpc.getInventoryItem, { petId: id, requestId: request.id }, { timeoutMs: this.config.inventoryDetailsTimeoutMs }).then(
      (item) => ({ quantity: item.quantity, status: item.status }),
      (error: unknown) => {
        if (!(error instanceof ApiError) || ![404, 503, 504].includes(error.status)) {
          this.logger.warn(`Inventory part of pet ${id} left out [${request.id}]: ${error instanceof Error ? error.message : String(error)}`);
        }
        return null;
      },
    );
    const pet = await this.upstream.call(CatalogRpc.getPetDetails, { id, requestId: request.id });
    return { ...pet, inventory: await inventory };
  }
}
