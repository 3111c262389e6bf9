import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern } from '@nestjs/microservices';
import { randomBytes } from 'node:crypto';
import { NatsRpcServer } from './nats-rpc.server';
import { createRpcClient, type RpcClient } from './rpc-client';

const servers = (process.env.NATS_SERVERS ?? 'nats://127.0.0.1:4222').split(',');
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
  let client: RpcClient;

  beforeAll(async () => {
    client = createRpcClient({ rpcTransport: 'nats', natsServers: servers, natsSubjectPrefix: subjectPrefix }, 'pinger', { host: '127.0.0.1', port: 0 }, 'rpc server test');
    await client.connect();
  });

  afterAll(() => client?.close());

  it('is listening once listen() resolves: a request sent right then is answered, never "no responders"', async () => {
    const answers: unknown[] = [];
    // A replica that has just started and reports ready: the first request must find it, every time.
    for (let round = 0; round < 30; round += 1) {
      const app = await NestFactory.createMicroservice(PingModule, {
        strategy: new NatsRpcServer({ servers, subjectPrefix, service: 'pinger' }),
        logger: false,
      });
      await app.listen();
      answers.push(await client.request(ping, {}, 2000).catch((error: Error) => error.message));
      await app.close();
    }
    expect(answers).toEqual(Array.from({ length: 30 }, () => 'pong'));
  }, 60_000);
});
