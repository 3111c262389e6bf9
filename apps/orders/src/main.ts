import 'reflect-metadata';
import { readConfigOrExit } from '@petstore/config';
import { migrate } from '@petstore/database';
import { bootstrapService } from '@petstore/service-kit';
import { AppModule } from './app.module';
import { ordersConfigShape } from './config';
import { ordersDatabaseOptions } from './mikro-orm.config';

async function main(): Promise<void> {
  const config = readConfigOrExit(ordersConfigShape);
  if (process.argv[2] === 'migrate') {
    const applied = await migrate(ordersDatabaseOptions(config.databaseUrl));
    process.stdout.write(`orders: ${applied.length} migration(s) applied${applied.length ? `: ${applied.join(', ')}` : ''}\n`);
    process.exit(0);
  }
  await bootstrapService(AppModule.forRoot(config), config);
}

main().catch((error: unknown) => {
  process.stderr.write(`orders failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
