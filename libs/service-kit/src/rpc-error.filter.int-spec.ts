import { NATS_TEST_HARNESS } from '@petstore/contracts';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Entity, PrimaryKey } from '@mikro-orm/core';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { EntityManager } from '@mikro-orm/postgresql';
import { Controller, Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { readConfig } from '@petstore/config';
import { databaseOptions, isDatabaseUnavailable } from '@petstore/database';
import { createRpcClient, natsUserEnv, rpcTransportConfigShape, type RpcClient } from '@petstore/rpc';
import { Client } from 'pg';
import { bootstrapService } from './bootstrap';
import type { ServiceConfig } from './service-config';

@Entity({ tableName: 'unused' })
class Unused {
  @PrimaryKey({ type: 'bigint' })
  id!: number;
}

@Controller()
class ProbeController {
  constructor(private readonly em: EntityManager) {}

  @MessagePattern({ cmd: 'probe.query' })
  async query(): Promise<{ ok: true }> {
    await this.em.fork().execute('select 1');
    return { ok: true };
  }

  @MessagePattern({ cmd: 'probe.slow' })
  async slow(): Promise<{ ok: true }> {
    await this.em.fork().execute('select pg_sleep(30)');
    return { ok: true };
  }

  @MessagePattern({ cmd: 'probe.bug' })
  async bug(): Promise<never> {
    await this.em.fork().execute('select * from no_such_table');
    throw new Error('unreachable');
  }
}

/** A port nothing listens on right now (@petstore/testing has one too, but it depends on this lib). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function probeModule(url: string): DynamicModule {
  @Module({})
  class ProbeModule {}
  return {
    module: ProbeModule,
    imports: [MikroOrmModule.forRoot({ ...databaseOptions({ url, entities: [Unused], migrations: [] }), connect: false })],
    controllers: [ProbeController],
  };
}

async function startProbe(url: string): Promise<{ app: INestApplication; client: RpcClient; send(cmd: string): Promise<unknown> }> {
  const config: ServiceConfig = {
    nodeEnv: 'test',
    logLevel: 'error',
    httpPort: await freePort(),
    host: '127.0.0.1',
    rpcPort: await freePort(),
    databaseUrl: url,
    databasePoolMax: 10,
    kafkaBrokers: [],
    kafkaNamespace: '',
    ...readConfig(rpcTransportConfigShape, { ...process.env, ...natsUserEnv(NATS_TEST_HARNESS), NATS_SUBJECT_PREFIX: `t-${randomBytes(4).toString('hex')}.` }),
    shutdownDelayMs: 0,
    drainTimeoutMs: 1000,
  };
  const app = await bootstrapService(probeModule(url), config, NATS_TEST_HARNESS);
  const client = createRpcClient(config, NATS_TEST_HARNESS, { host: '127.0.0.1', port: config.rpcPort }, 'test');
  const send = (cmd: string) => client.request({ cmd }, {}, 20_000).catch((error: unknown) => ({ rejected: error }));
  return { app, client, send };
}

const unavailable = { rejected: { status: 503, code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } };

describe('a database out of reach answers 503 SERVICE_UNAVAILABLE, not 500', () => {
  jest.setTimeout(30_000);

  it('when nothing listens where the database should be', async () => {
    const probe = await startProbe(`postgres://postgres@127.0.0.1:${await freePort()}/petstore_unreachable_test`);
    try {
      await expect(probe.send('probe.query')).resolves.toEqual(unavailable);
    } finally {
      await probe.client.close();
      await probe.app.close();
    }
  });

  it('when the server ends the session under the service (as a restart does), then serves again', async () => {
    const database = `petstore_probe_${randomBytes(4).toString('hex')}_test`;
    const admin = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    await admin.query(`create database "${database}"`);
    const probe = await startProbe(`postgres://postgres@127.0.0.1:5432/${database}`);
    try {
      const slow = probe.send('probe.slow');
      const busy = `select pid from pg_stat_activity where datname = $1 and query like '%pg_sleep%' and state = 'active'`;
      while ((await admin.query(busy, [database])).rowCount === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database]);
      await expect(slow).resolves.toEqual(unavailable);
      // Other pooled connections died with it: each is a 503 until the pool has fresh ones.
      let answer = await probe.send('probe.query');
      for (let tries = 1; tries < 10 && !('ok' in (answer as object)); tries += 1) {
        expect(answer).toEqual(unavailable);
        answer = await probe.send('probe.query');
      }
      expect(answer).toEqual({ ok: true });
    } finally {
      await probe.client.close();
      await probe.app.close();
      await admin.query(`drop database if exists "${database}" with (force)`);
      await admin.end();
    }
  });

  it('while a real bug in a query stays a 500 with nothing of its text', async () => {
    const probe = await startProbe('postgres://postgres@127.0.0.1:5432/postgres');
    try {
      await expect(probe.send('probe.bug')).resolves.toEqual({
        rejected: { status: 500, code: 'INTERNAL_ERROR', message: 'Internal error' },
      });
    } finally {
      await probe.client.close();
      await probe.app.close();
    }
  });
});

describe('isDatabaseUnavailable', () => {
  it('recognises connection failures by code, by SQLSTATE class 08 and through causes', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('the database system is shutting down'), { code: '57P03' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('connection failure'), { code: '08006' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('select 1 - Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Transaction query already complete, run with DEBUG=knex:tx for more info'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: new Error('Connection terminated due to connection timeout') }))).toBe(true);
  });

  it('leaves everything else to be a bug', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(new Error('Cannot read properties of undefined'))).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});
