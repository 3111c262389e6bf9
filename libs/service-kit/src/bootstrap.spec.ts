import { Controller, Injectable, Module, type INestApplication } from '@nestjs/common';
import { readConfig } from '@petstore/config';
import { defineRpc, HealthPatterns, NATS_TEST_HARNESS, type ById } from '@petstore/contracts';
import { useProcessLogger } from '@petstore/observability';
import { createRpcClient, natsUserEnv, rpcTransportConfigShape, type RpcClient } from '@petstore/rpc';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { bootstrapService } from './bootstrap';
import { DomainError } from './domain-error';
import { HealthModule, type ReadinessCheck } from './health.module';
import { RpcHandler } from './rpc-handler.decorator';
import type { ServiceConfig } from './service-config';

let brokerUp = true;

@Injectable()
class BrokerCheck implements ReadinessCheck {
  readonly name = 'broker';
  async check(): Promise<void> {
    if (!brokerUp) throw new Error('down');
  }
}

const getThing = defineRpc<ById, { id: string }>()(undefined, 'things.get');

@Controller()
class ThingsController {
  @RpcHandler(getThing)
  get(payload: ById): { id: string } {
    if (payload.id === 'missing') throw new DomainError(404, 'PET_NOT_FOUND', 'Pet missing does not exist');
    if (payload.id === 'bug') throw new Error('select * from secrets failed');
    return { id: payload.id };
  }
}

@Module({ imports: [HealthModule.forRoot(NATS_TEST_HARNESS, [BrokerCheck])], controllers: [ThingsController] })
class ThingsModule {}

describe('bootstrapService', () => {
  const config: ServiceConfig = {
    nodeEnv: 'test',
    logLevel: 'log',
    httpPort: 39_301,
    host: '127.0.0.1',
    rpcPort: 39_401,
    databaseUrl: 'postgres://postgres@127.0.0.1:5432/unused_test',
    databasePoolMax: 10,
    kafkaBrokers: [],
    kafkaNamespace: '',
    // The transport the run asks for (RPC_TRANSPORT), on subjects of this suite's own.
    ...readConfig(rpcTransportConfigShape, { ...process.env, ...natsUserEnv(NATS_TEST_HARNESS), NATS_SUBJECT_PREFIX: `t-${randomBytes(4).toString('hex')}.` }),
    shutdownDelayMs: 0,
    drainTimeoutMs: 1000,
  };
  let app: INestApplication;
  let client: RpcClient;

  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    // The lines go to the test, not to its output.
    useProcessLogger({ service: NATS_TEST_HARNESS, destination: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
    app = await bootstrapService(ThingsModule, config);
    client = createRpcClient(config, NATS_TEST_HARNESS, { host: '127.0.0.1', port: config.rpcPort }, 'test');
  });

  afterAll(async () => {
    await client.close();
    await app.close();
  });

  const send = <T>(pattern: { cmd: string }, payload: object) => client.request<T>(pattern, payload, 5000);

  it('answers RPC commands and sends domain errors as the RPC error body', async () => {
    await expect(send({ cmd: 'things.get' }, { id: '7' })).resolves.toEqual({ id: '7' });
    await expect(send({ cmd: 'things.get' }, { id: 'missing' })).rejects.toEqual({
      status: 404,
      code: 'PET_NOT_FOUND',
      message: 'Pet missing does not exist',
    });
  });

  it('never sends the text of an unexpected error', async () => {
    await expect(send({ cmd: 'things.get' }, { id: 'bug' })).rejects.toEqual({
      status: 500,
      code: 'INTERNAL_ERROR',
      message: 'Internal error',
    });
  });

  it('reports readiness over HTTP and RPC from its checks', async () => {
    const url = `http://127.0.0.1:${config.httpPort}`;
    expect((await fetch(`${url}/health/live`)).status).toBe(200);
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ service: NATS_TEST_HARNESS, ready: true, checks: { broker: 'up' } });
    await expect(send(HealthPatterns.check, {})).resolves.toEqual({ service: NATS_TEST_HARNESS, ready: true });

    brokerUp = false;
    const notReady = await fetch(`${url}/health/ready`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ service: NATS_TEST_HARNESS, ready: false, checks: { broker: 'down' } });
    await expect(send(HealthPatterns.check, {})).resolves.toEqual({ service: NATS_TEST_HARNESS, ready: false });
    brokerUp = true;
  });

  it('writes a JSON line per answered RPC with the payload\'s request id, pattern and status', async () => {
    await send({ cmd: 'things.get' }, { id: '8', requestId: 'req-things-8' });
    await expect(send({ cmd: 'things.get' }, { id: 'missing', requestId: 'req-things-missing' })).rejects.toBeDefined();
    expect(lines.filter((line) => String(line['requestId']).startsWith('req-things-'))).toEqual([
      expect.objectContaining({ level: 'info', service: NATS_TEST_HARNESS, requestId: 'req-things-8', pattern: 'things.get', status: 'ok', durationMs: expect.any(Number) }),
      expect.objectContaining({ level: 'info', service: NATS_TEST_HARNESS, requestId: 'req-things-missing', pattern: 'things.get', status: 'PET_NOT_FOUND' }),
    ]);
  });

  it('serves its metrics on GET /metrics of its HTTP port, in a form promtool accepts', async () => {
    await send({ cmd: 'things.get' }, { id: '9' });
    await expect(send({ cmd: 'things.get' }, { id: 'bug' })).rejects.toBeDefined();
    await fetch(`http://127.0.0.1:${config.httpPort}/health/live`);
    const response = await fetch(`http://127.0.0.1:${config.httpPort}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toMatch(/^petstore_rpc_server_duration_seconds_count\{pattern="things.get",status="ok"\} [1-9]/m);
    expect(text).toMatch(/^petstore_rpc_server_duration_seconds_count\{pattern="things.get",status="INTERNAL_ERROR"\} [1-9]/m);
    expect(text).toMatch(/^petstore_http_requests_total\{method="GET",route="\/health\/live",status="200"\} [1-9]/m);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    // Exits non-zero (and the call throws with its findings) when the exposition breaks a rule.
    execFileSync('promtool', ['check', 'metrics'], { input: text, stdio: ['pipe', 'pipe', 'pipe'] });
  });
});
