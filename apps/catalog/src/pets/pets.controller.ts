import { CreateRequestContext, MikroORM } from '@mikro-orm/postgresql';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CatalogPatterns,
  type ById,
  type CreatePetCommand,
  type ListPetsQuery,
  type Page,
  type PatchPetCommand,
  type Pet,
  type PetWithCategory,
  type ReplacePetCommand,
} from '@petstore/contracts';
import { PetsService } from './pets.service';

/** Each message gets its own EntityManager fork (@CreateRequestContext reads `orm`). */
@Controller()
export class PetsController {
  constructor(
    private readonly pets: PetsService,
    private readonly orm: MikroORM,
  ) {}

  @MessagePattern(CatalogPatterns.listPets)
  @CreateRequestContext()
  list(@Payload() query: ListPetsQuery): Promise<Page<Pet>> {
    return this.pets.list(query);
  }

  @MessagePattern(CatalogPatterns.createPet)
  @CreateRequestContext()
  create(@Payload() command: CreatePetCommand): Promise<Pet> {
    return this.pets.create(command);
  }

  @MessagePattern(CatalogPatterns.getPet)
  @CreateRequestContext()
  get(@Payload() query: ById): Promise<Pet> {
    return this.pets.get(query);
  }

  @MessagePattern(CatalogPatterns.getPetDetails)
  @CreateRequestContext()
  details(@Payload() query: ById): Promise<PetWithCategory> {
    return this.pets.details(query);
  }

  @MessagePattern(CatalogPatterns.replacePet)
  @CreateRequestContext()
  replace(@Payload() command: ReplacePetCommand): Promise<Pet> {
    return this.pets.replace(command);
  }

  @MessagePattern(CatalogPatterns.patchPet)
  @CreateRequestContext()
  patch(@Payload() command: PatchPetCommand): Promise<Pet> {
    return this.pets.patch(command);
  }

  @MessagePattern(CatalogPatterns.deletePet)
  @CreateRequestContext()
  async delete(@Payload() command: ById): Promise<null> {
    await this.pets.delete(command);
    return null;
  }
}
