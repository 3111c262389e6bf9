import { Module } from '@nestjs/common';
import { KnownPetsService } from './known-pets.service';
import { PetKnownHandler } from './pet-known.handler';

export const petHandlers = [PetKnownHandler];

@Module({
  providers: [KnownPetsService, ...petHandlers],
  exports: [KnownPetsService],
})
export class PetsModule {}
