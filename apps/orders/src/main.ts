import './tracing';
import 'reflect-metadata';
import { runService } from '@petstore/service-kit';
import { AppModule } from './app.module';
import { ordersConfigShape } from './config';
import { ordersDatabaseOptions } from './mikro-orm.config';

runService({
  name: 'orders',
  configShape: ordersConfigShape,
  databaseOptions: ordersDatabaseOptions,
  appModule: (config) => AppModule.forRoot(config),
});
