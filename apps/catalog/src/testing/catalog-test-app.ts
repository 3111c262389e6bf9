import { MikroORM } from '@mikro-orm/postgresql';
import type { INestApplication } from '@nestjs/common';
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import { readConfig } from '@petstore/config';
import type { RpcErrorBody } from '@petstore/contracts';
import { prepareTestDatabase } from '@petstore/database';
import { MessagingService } from '@petstore/messaging';
import { bootstrapService } from '@petstore/service-kit';
import { testDatabaseUrl, testKafkaBrokers } from '@petstore/testing';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { firstValueFrom } from 'rxjs';
import { AppModule } from '../app.module';
import { catalogConfigShape, type CatalogConfig } from '../config';
import { catalogDatabaseOptions } from '../mikro-orm.config';

export const TEST_DATABASE_URL = testDatabaseUrl('catalog');

/**
 * The catalog as the gateway sees it: the real process wiring (bootstrapService: TCP
 * transport, health HTTP server, Kafka relay and consumer) on free ports, against a
 * freshly migrated test database and a Kafka namespace no other run shares.
 */
export interface CatalogTestApp {
  config: CatalogConfig;
  app: INestApplication;
  client: ClientProxy;
  /** Sends a message and resolves with the reply; rejects with the RPC error body. */
  send<T>(pattern: { cmd: string }, payload: object): Promise<T>;
  /** Sends a message that must fail and resolves with its RPC error body. */
  refusal(pattern: { cmd: string }, payload: object): Promise<RpcErrorBody>;
  /** One number from a SQL query, for asserting what was (not) written. */
  count(sql: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

export async function startCatalog(namespace: string): Promise<CatalogTestApp> {
  const [httpPort, rpcPort] = [await freePort(), await freePort()];
  const config = readConfig(catalogConfigShape, {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
    HTTP_PORT: String(httpPort),
    RPC_PORT: String(rpcPort),
    DATABASE_URL: TEST_DATABASE_URL,
    KAFKA_BROKERS: testKafkaBrokers().join(','),
    KAFKA_NAMESPACE: namespace,
  });
  await prepareTestDatabase(catalogDatabaseOptions(config.databaseUrl));
  const app = await bootstrapService(AppModule.forRoot(config), config);
  // Topics provisioned, relay running, consumer group joined: events flow from the first test on.
  await app.get(MessagingService).whenConsumerJoined();
  const client = ClientProxyFactory.create({ transport: Transport.TCP, options: { host: config.host, port: rpcPort } });
  await client.connect();
  const orm = app.get(MikroORM);

  const send = <T>(pattern: { cmd: string }, payload: object) =>
    firstValueFrom(client.send<T>(pattern, { requestId: randomUUID(), ...payload }));

  return {
    config,
    app,
    client,
    send,
    async refusal(pattern, payload) {
      try {
        const reply = await send<unknown>(pattern, payload);
        throw new Error(`Expected ${pattern.cmd} to fail, it answered ${JSON.stringify(reply)}`);
      } catch (error) {
        return error as RpcErrorBody;
      }
    },
    async count(sql, params = []) {
      const [row] = await orm.em.getConnection().execute<{ count: string | number }[]>(sql, params);
      return Number(row?.count);
    },
    async close() {
      await client.close();
      await app.close();
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
