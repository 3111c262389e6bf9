import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseReadinessCheck } from '@petstore/database';
import { KafkaReadinessCheck, MessagingModule } from '@petstore/messaging';
import { HealthModule } from '@petstore/service-kit';
import { CategoriesModule } from './categories/categories.module';
import { CATALOG_PRODUCER, type CatalogConfig } from './config';
import { catalogDatabaseOptions } from './mikro-orm.config';
import { PetStatusRecomputedHandler } from './pets/pet-status-recomputed.handler';
import { PetsModule } from './pets/pets.module';

@Module({})
export class AppModule {
  static forRoot(config: CatalogConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MikroOrmModule.forRoot(catalogDatabaseOptions(config.databaseUrl, config.databasePoolMax)),
        MessagingModule.forRoot({
          producer: CATALOG_PRODUCER,
          kafka: { brokers: config.kafkaBrokers, namespace: config.kafkaNamespace },
          handlers: [PetStatusRecomputedHandler],
        }),
        HealthModule.forRoot('catalog', [DatabaseReadinessCheck, KafkaReadinessCheck]),
        CategoriesModule,
        PetsModule,
      ],
    };
  }
}
