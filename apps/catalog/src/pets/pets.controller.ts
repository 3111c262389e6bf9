import { CreateRequestContext, MikroORM } from '@mikro-orm/postgresql';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CatalogRpc,
  type ById,
  type CreatePetCommand,
  type ListPetsQuery,
  type Page,
  type PatchPetCommand,
  type Pet,
  type PetWithCategory,
  type ReplacePetCommand,
} from '@petstore/contracts';
import { RpcHandler } from '@petstore/service-kit';
import { PetsService } from './pets.service';

/**
 * Each message that works with entities gets its own EntityManager fork (@CreateRequestContext
 * reads `orm`). The pure reads (plain SQL, those of one event-loop turn sent together) need no
 * unit of work, and a fork per read was about 4 % of the catalog's CPU on the read path
 * (docs/BENCHMARKS-HISTORY.md, "Reads without an EntityManager fork"). MikroORM refuses entity
 * work on the global EntityManager, so a read that grows to need one fails loudly.
 */
@Controller()
export class PetsController {
  constructor(
    private readonly pets: PetsService,
    private readonly orm: MikroORM,
  ) {}

  @RpcHandler(CatalogRpc.listPets)
  list(@Payload() query: ListPetsQuery): Promise<Page<Pet>> {
    return this.pets.list(query);
  }

  @RpcHandler(CatalogRpc.createPet)
  @CreateRequestContext()
  create(@Payload() command: CreatePetCommand): Promise<Pet> {
    return this.pets.create(command);
  }

  @RpcHandler(CatalogRpc.getPet)
  get(@Payload() query: ById): Promise<Pet> {
    return this.pets.get(query);
  }

  @RpcHandler(CatalogRpc.getPetDetails)
  details(@Payload() query: ById): Promise<PetWithCategory> {
    return this.pets.details(query);
  }

  @RpcHandler(CatalogRpc.replacePet)
  @CreateRequestContext()
  replace(@Payload() command: ReplacePetCommand): Promise<Pet> {
    return this.pets.replace(command);
  }

  @RpcHandler(CatalogRpc.patchPet)
  @CreateRequestContext()
  patch(@Payload() command: PatchPetCommand): Promise<Pet> {
    return this.pets.patch(command);
  }

  @RpcHandler(CatalogRpc.deletePet)
  @CreateRequestContext()
  async delete(@Payload() command: ById): Promise<null> {
    await this.pets.delete(command);
    return null;
  }
}
