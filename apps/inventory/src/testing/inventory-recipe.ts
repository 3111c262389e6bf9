import { MessagingService } from '@petstore/messaging';
import type { ServiceRecipe } from '@petstore/testing';
import { AppModule } from '../app.module';
import { inventoryConfigShape, type InventoryConfig } from '../config';
import { inventoryDatabaseOptions } from '../mikro-orm.config';

/** The inventory service as its tests start it in their own process (startServiceForTest). */
export const inventoryRecipe: ServiceRecipe<InventoryConfig> = {
  service: 'inventory',
  configShape: inventoryConfigShape,
  appModule: (config) => AppModule.forRoot(config),
  databaseOptions: inventoryDatabaseOptions,
  whenConsumerJoined: (app) => app.get(MessagingService).whenConsumerJoined(),
};
