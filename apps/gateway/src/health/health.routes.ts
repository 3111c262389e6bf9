import { HealthRpc, type RpcService } from '@petstore/contracts';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/api-error';
import { SERVICES, type Upstream } from '../upstream/upstream';

const CHECK_TIMEOUT_MS = 1000;

type ServiceState = 'up' | 'down' | 'unavailable' | 'timeout';

/** A failed check by its status: no answer in time, or no connection; anything else is down. */
const FAILED: Partial<Record<number, ServiceState>> = { 504: 'timeout', 503: 'unavailable' };

export function registerHealth(app: FastifyInstance, upstream: Upstream): void {
  /** The process answers: nothing else is checked, so a slow service never restarts the gateway. */
  app.get('/health/live', async () => ({ status: 'up' }));

  /**
   * Ready when each service answers its RPC health check within a second, which tests the
   * very transport the API uses. Not ready is a 503 whose body is the Error object, with
   * the state of each service added.
   */
  app.get('/health/ready', async (request, reply) => {
    const check = (service: RpcService): Promise<ServiceState> =>
      upstream.call(HealthRpc.check, { requestId: request.id }, { service, timeoutMs: CHECK_TIMEOUT_MS }).then(
        (answer) => (answer?.ready ? 'up' : 'down'),
        (error: unknown) => (error instanceof ApiError && FAILED[error.status]) || 'down',
      );
    const services = Object.fromEntries(await Promise.all(SERVICES.map(async (service) => [service, await check(service)] as const)));
    const notReady = SERVICES.filter((service) => services[service] !== 'up');
    if (notReady.length === 0) return { status: 'up', ready: true, services };
    reply.code(503);
    return { ...new ApiError('SERVICE_UNAVAILABLE', `Not ready: ${notReady.join(', ')} not answering`).body(request.id), ready: false, services };
  });
}
