import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Module, type DynamicModule } from '@nestjs/common';
import { CatalogClientModule } from '@petstore/catalog-client';
import { DatabaseReadinessCheck } from '@petstore/database';
import { KafkaReadinessCheck, MessagingModule } from '@petstore/messaging';
import { HealthModule } from '@petstore/service-kit';
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
        MikroOrmModule.forRoot(ordersDatabaseOptions(config.databaseUrl, config.databasePoolMax)),
        MessagingModule.forRoot({
          producer: ORDERS_PRODUCER,
          kafka: { brokers: config.kafkaBrokers, namespace: config.kafkaNamespace },
          handlers: [...petHandlers, ...orderHandlers],
        }),
        HealthModule.forRoot(ORDERS_PRODUCER, [DatabaseReadinessCheck, KafkaReadinessCheck]),
        CatalogClientModule.forRoot(config),
        PetsModule,
        OrdersModule.forRoot(config),
      ],
    };
  }
}
