import './tracing';
import 'reflect-metadata';
import { runService } from '@petstore/service-kit';
import { AppModule } from './app.module';
import { catalogConfigShape } from './config';
import { catalogDatabaseOptions } from './mikro-orm.config';

runService({
  name: 'catalog',
  configShape: catalogConfigShape,
  databaseOptions: catalogDatabaseOptions,
  appModule: (config) => AppModule.forRoot(config),
});
