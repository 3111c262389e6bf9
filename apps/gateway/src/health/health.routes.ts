import { HealthRpc } from '@petstore/contracts';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/api-error';
import { SERVICES, type Upstream } from '../upstream/upstream';

const CHECK_TIMEOUT_MS = 1000;

type ServiceState = 'up' | 'down' | 'unavailable' | 'timeout';

export function registerHealth(app: FastifyInstance, upstream: Upstream): void {
  const hide = { schema: { hide: true } };

  /** The process answers: nothing else is checked, so a slow service never restarts the gateway. */
  app.get('/health/live', hide, async () => ({ status: 'up' }));

  /**
   * Ready when each service answers its RPC health check within a second, which tests the
   * very transport the API uses. Not ready is a 503 whose body is the Error object, with
   * the state of each service added.
   */
  app.get('/health/ready', hide, async (request, reply) => {
    const states = await Promise.all(
      SERVICES.map(async (service): Promise<[string, ServiceState]> => {
        try {
          const answer = await upstream.call(HealthRpc.check, { requestId: request.id }, { service, timeoutMs: CHECK_TIMEOUT_MS });
          return [service, answer?.ready ? 'up' : 'down'];
        } catch (error) {
          const status = error instanceof ApiError ? error.status : 500;
          return [service, status === 504 ? 'timeout' : status === 503 ? 'unavailable' : 'down'];
        }
      }),
    );
    const services = Object.fromEntries(states);
    const notReady = states.filter(([, state]) => state !== 'up').map(([service]) => service);
    if (notReady.length === 0) return { status: 'up', ready: true, services };
    reply.code(503);
    return { ...new ApiError('SERVICE_UNAVAILABLE', `Not ready: ${notReady.join(', ')} not answering`).body(request.id), ready: false, services };
  });
}
