import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Module, type DynamicModule } from '@nestjs/common';
import { CatalogClientModule } from '@petstore/catalog-client';
import { DatabaseReadinessCheck } from '@petstore/database';
import { KafkaReadinessCheck, MessagingModule } from '@petstore/messaging';
import { HealthModule } from '@petstore/service-kit';
import { INVENTORY_PRODUCER, type InventoryConfig } from './config';
import { inventoryHandlers, InventoryModule } from './inventory/inventory.module';
import { inventoryDatabaseOptions } from './mikro-orm.config';

@Module({})
export class AppModule {
  static forRoot(config: InventoryConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MikroOrmModule.forRoot(inventoryDatabaseOptions(config.databaseUrl, config.databasePoolMax)),
        MessagingModule.forRoot({
          producer: INVENTORY_PRODUCER,
          kafka: { brokers: config.kafkaBrokers, namespace: config.kafkaNamespace },
          handlers: inventoryHandlers,
        }),
        HealthModule.forRoot(INVENTORY_PRODUCER, [DatabaseReadinessCheck, KafkaReadinessCheck]),
        CatalogClientModule.forRoot(config),
        InventoryModule,
      ],
    };
  }
}
