import { MessagingService } from '@petstore/messaging';
import type { ServiceRecipe } from '@petstore/testing';
import { AppModule } from '../app.module';
import { ordersConfigShape, type OrdersConfig } from '../config';
import { ordersDatabaseOptions } from '../mikro-orm.config';

/** The orders service as its tests start it in their own process (startServiceForTest). */
export const ordersRecipe: ServiceRecipe<OrdersConfig> = {
  service: 'orders',
  configShape: ordersConfigShape,
  appModule: (config) => AppModule.forRoot(config),
  databaseOptions: ordersDatabaseOptions,
  whenConsumerJoined: (app) => app.get(MessagingService).whenConsumerJoined(),
};
