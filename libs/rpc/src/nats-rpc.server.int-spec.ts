import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern } from '@nestjs/microservices';
import { readConfig } from '@petstore/config';
import { NATS_TEST_HARNESS } from '@petstore/contracts';
import { randomBytes } from 'node:crypto';
import { NatsRpcServer } from './nats-rpc.server';
import { createRpcClient, type RpcClient } from './rpc-client';
import { natsCredentialsOf, natsUserEnv, rpcTransportConfigShape } from './rpc-transport.config';

const ping = { cmd: 'ping' };

@Controller()
class PingController {
  @MessagePattern(ping)
  answer(): string {
    return 'pong';
  }
}

@Module({ controllers: [PingController] })
class PingModule {}

describe('NatsRpcServer against the NATS server', () => {
  const subjectPrefix = `rpc-server-test-${randomBytes(4).toString('hex')}.`;
  // The test suites' own NATS user: its subjects are `<prefix>harness.>` (tools/stack/src/nats.ts).
  const transport = readConfig(rpcTransportConfigShape, { ...process.env, ...natsUserEnv(NATS_TEST_HARNESS), NATS_SUBJECT_PREFIX: subjectPrefix });
  let client: RpcClient;

  beforeAll(async () => {
    client = createRpcClient(transport, NATS_TEST_HARNESS, { host: '127.0.0.1', port: 0 }, 'rpc server test');
    await client.connect();
  });

  afterAll(() => client?.close());

  it('is listening once listen() resolves: a request sent right then is answered, never "no responders"', async () => {
    const answers: unknown[] = [];
    // A replica that has just started and reports ready: the first request must find it, every time.
    for (let round = 0; round < 30; round += 1) {
      const app = await NestFactory.createMicroservice(PingModule, {
        strategy: new NatsRpcServer({ servers: transport.natsServers, subjectPrefix, service: NATS_TEST_HARNESS, credentials: natsCredentialsOf(transport) }),
        logger: false,
      });
      await app.listen();
      answers.push(await client.request(ping, {}, 2000).catch((error: Error) => error.message));
      await app.close();
    }
    expect(answers).toEqual(Array.from({ length: 30 }, () => 'pong'));
  }, 60_000);
});
