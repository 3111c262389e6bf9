import type { Options } from '@mikro-orm/postgresql';
import type { DynamicModule } from '@nestjs/common';
import { readConfigOrExit, type ConfigShape } from '@petstore/config';
import { migrate } from '@petstore/database';
import { bootstrapService } from './bootstrap';
import type { ServiceConfig } from './service-config';

export interface ServiceDefinition<C extends ServiceConfig> {
  name: string;
  configShape: ConfigShape<C>;
  databaseOptions(databaseUrl: string): Options;
  appModule(config: C): DynamicModule;
}

/**
 * The whole of a service's `main.ts`. `node main.js migrate` is the explicit start-up step that
 * creates the database if missing and applies the migrations, then exits; `node main.js` serves.
 */
export function runService<C extends ServiceConfig>(service: ServiceDefinition<C>): void {
  const config = readConfigOrExit(service.configShape);
  const run = async (): Promise<void> => {
    if (process.argv[2] !== 'migrate') {
      await bootstrapService(service.appModule(config), config);
      return;
    }
    const applied = await migrate(service.databaseOptions(config.databaseUrl));
    process.stdout.write(`${service.name}: ${applied.length} migration(s) applied${applied.length ? `: ${applied.join(', ')}` : ''}\n`);
    process.exit(0);
  };
  run().catch((error: unknown) => {
    process.stderr.write(`${service.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
