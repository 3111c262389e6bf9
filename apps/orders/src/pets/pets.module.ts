import { Module } from '@nestjs/common';
import { KnownPetsService } from './known-pets.service';
import { PetCreatedHandler } from './pet-created.handler';
import { PetUpdatedHandler } from './pet-updated.handler';

export const petHandlers = [PetCreatedHandler, PetUpdatedHandler];

@Module({
  providers: [KnownPetsService, ...petHandlers],
  exports: [KnownPetsService],
})
export class PetsModule {}
