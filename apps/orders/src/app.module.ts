import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseReadinessCheck } from '@petstore/database';
import { KafkaReadinessCheck, MessagingModule } from '@petstore/messaging';
import { HealthModule } from '@petstore/service-kit';
import { CatalogModule } from './catalog/catalog.module';
import { ORDERS_PRODUCER, type OrdersConfig } from './config';
import { ordersDatabaseOptions } from './mikro-orm.config';
import { orderHandlers, OrdersModule } from './orders/orders.module';
import { petHandlers, PetsModule } from './pets/pets.module';

@Module({})
export class AppModule {
  static forRoot(config: OrdersConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MikroOrmModule.forRoot(ordersDatabaseOptions(config.databaseUrl)),
        MessagingModule.forRoot({
          producer: ORDERS_PRODUCER,
          kafka: { brokers: config.kafkaBrokers, namespace: config.kafkaNamespace },
          handlers: [...petHandlers, ...orderHandlers],
        }),
        HealthModule.forRoot(ORDERS_PRODUCER, [DatabaseReadinessCheck, KafkaReadinessCheck]),
        CatalogModule.forRoot({ ...config.catalogRpc, timeoutMs: config.catalogLookupTimeoutMs }),
        PetsModule,
        OrdersModule,
      ],
    };
  }
}
