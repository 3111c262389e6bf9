import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { GatewayConfig } from '../config';
import { createGateway, type HttpLimits } from '../gateway';
import { fakeTransport, type FakeService } from './fake-service';
import { call, type HttpResponse, type RequestOptions } from './http-client';

export interface GatewayUnderTest {
  url: string;
  port: number;
  /** Every route Fastify registered: method and path as declared. */
  routes: Array<{ method: string; url: string }>;
  call(method: string, path: string, options?: RequestOptions): Promise<HttpResponse>;
  /** The Nest application, for what a socket cannot send (`inject`) and for stopping it gracefully. */
  nest: NestFastifyApplication;
  close(): Promise<void>;
}

/** The gateway in this process, on a free port, in front of the given stand-ins for the services. */
export async function startGateway(
  services: Record<'catalog' | 'orders' | 'inventory', FakeService>,
  overrides: Partial<GatewayConfig> = {},
  limits?: Partial<HttpLimits>,
): Promise<GatewayUnderTest> {
  const config: GatewayConfig = {
    nodeEnv: 'test',
    host: '127.0.0.1',
    httpPort: 0,
    metricsPort: 0,
    ...fakeTransport,
    catalogRpc: { host: '127.0.0.1', port: services.catalog.port },
    ordersRpc: { host: '127.0.0.1', port: services.orders.port },
    inventoryRpc: { host: '127.0.0.1', port: services.inventory.port },
    apiKeys: [],
    rateLimitPerSecond: 1000,
    rateLimitRedisUrl: undefined,
    rateLimitRedisPassword: undefined,
    rateLimitRedisCaFile: undefined,
    rateLimitRedisTimeoutMs: 50,
    // Budgets a busy machine's RPC stays well inside, so only a service that never answers meets them.
    upstreamTimeoutMs: 1500,
    inventoryDetailsTimeoutMs: 750,
    petsV1Sunset: new Date('2999-01-01T00:00:00Z'),
    logLevel: 'error',
    ...overrides,
  };
  const routes: GatewayUnderTest['routes'] = [];
  const app = await createGateway(config, limits, (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return { url, port, routes, nest: app, call: (method, path, options) => call(url, method, path, options), close: () => app.close() };
}

/** The Error object of API.md §4: the status and code, JSON, and the request id of the response. */
export function expectError(response: { status: number; headers: Record<string, unknown>; body?: unknown }, status: number, code: string): void {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const body = response.body as any;
  expect({ status: response.status, code: body?.code }).toEqual({ status, code });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(body.status).toBe(status);
  expect(typeof body.message).toBe('string');
  expect(body.requestId).toBe(response.headers['x-request-id']);
}
