import './tracing';
import 'reflect-metadata';
import { runService } from '@petstore/service-kit';
import { AppModule } from './app.module';
import { inventoryConfigShape } from './config';
import { inventoryDatabaseOptions } from './mikro-orm.config';

runService({
  name: 'inventory',
  configShape: inventoryConfigShape,
  databaseOptions: inventoryDatabaseOptions,
  appModule: (config) => AppModule.forRoot(config),
});
