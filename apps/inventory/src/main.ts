import 'reflect-metadata';
import { readConfigOrExit } from '@petstore/config';
import { migrate } from '@petstore/database';
import { bootstrapService } from '@petstore/service-kit';
import { AppModule } from './app.module';
import { inventoryConfigShape } from './config';
import { inventoryDatabaseOptions } from './mikro-orm.config';

async function main(): Promise<void> {
  const config = readConfigOrExit(inventoryConfigShape);
  if (process.argv[2] === 'migrate') {
    const applied = await migrate(inventoryDatabaseOptions(config.databaseUrl));
    process.stdout.write(`inventory: ${applied.length} migration(s) applied${applied.length ? `: ${applied.join(', ')}` : ''}\n`);
    process.exit(0);
  }
  await bootstrapService(AppModule.forRoot(config), config);
}

main().catch((error: unknown) => {
  process.stderr.write(`inventory failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
