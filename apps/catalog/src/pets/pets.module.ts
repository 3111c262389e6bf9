import { Module } from '@nestjs/common';
import { PetEvents } from './pet.events';
import { PetStatusRecomputedHandler } from './pet-status-recomputed.handler';
import { PetsController } from './pets.controller';
import { PetsService } from './pets.service';

@Module({
  controllers: [PetsController],
  providers: [PetsService, PetEvents, PetStatusRecomputedHandler],
  exports: [PetsService],
})
export class PetsModule {}
