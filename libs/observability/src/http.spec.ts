import Fastify, { type FastifyInstance } from 'fastify';
import { register } from 'prom-client';
import { observeHttp } from './http';
import { createLogger } from './logger';
import { registerMetricsRoute } from './metrics';

describe('observeHttp', () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ service: 'gateway', destination: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    app = Fastify({ genReqId: (raw) => String(raw.headers['x-request-id'] ?? 'none') });
    observeHttp(app, { logger, bindRequestId: true });
    registerMetricsRoute(app);
    app.post<{ Params: { id: string } }>('/things/:id', async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      logger.warn('inside the handler');
      return { id: request.params.id };
    });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(() => app.close());

  it('binds the request id for the handler, after the body was read, and writes a line per response', async () => {
    const response = await fetch(`${url}/things/7`, { method: 'POST', headers: { 'x-request-id': 'req-7', 'content-type': 'application/json' }, body: JSON.stringify({ big: 'x'.repeat(100_000) }) });
    expect(response.status).toBe(200);
    // The line is written when the response has finished, which can be after the client has it.
    const ours = () => lines.filter((line) => line['requestId'] === 'req-7');
    for (let waited = 0; ours().length < 2 && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lines.filter((line) => line['requestId'] === 'req-7')).toEqual([
      expect.objectContaining({ level: 'warn', service: 'gateway', msg: 'inside the handler' }),
      expect.objectContaining({ level: 'info', method: 'POST', route: '/things/:id', status: '200', durationMs: expect.any(Number) }),
    ]);
  });

  it('counts and times responses by route pattern, unmatched ones under one label', async () => {
    await fetch(`${url}/things/8`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await fetch(`${url}/nowhere/${Math.random()}`);
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toMatch(/^petstore_http_requests_total\{method="POST",route="\/things\/:id",status="200"\} [2-9]/m);
    expect(text).toMatch(/^petstore_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 1$/m);
    expect(text).not.toMatch(/nowhere/);
    expect(register.contentType).toMatch(/^text\/plain/);
  });
});
