import { Controller, Get, Req, Res } from '@nestjs/common';
import { HealthRpc, type RpcService } from '@petstore/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error';
import { Shutdown } from '../shutdown';
import { SERVICES, Upstream } from '../upstream/upstream';

const CHECK_TIMEOUT_MS = 1000;

type ServiceState = 'up' | 'down' | 'unavailable' | 'timeout';

/** A failed check by its status: no answer in time, or no connection; anything else is down. */
const FAILED: Partial<Record<number, ServiceState>> = { 504: 'timeout', 503: 'unavailable' };

@Controller('health')
export class HealthController {
  constructor(
    private readonly upstream: Upstream,
    private readonly shutdown: Shutdown,
  ) {}

  /** The process answers: nothing else is checked, so a slow service never restarts the gateway. */
  @Get('live')
  live() {
    return { status: 'up' };
  }

  /**
   * Ready when each service answers its RPC health check within a second, which tests the
   * very transport the API uses, and the gateway is not stopping (load balancers then stop
   * sending it requests). Not ready is a 503 whose body is the Error object, with the state
   * of each service added.
   */
  @Get('ready')
  async ready(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const check = (service: RpcService): Promise<ServiceState> =>
      this.upstream.call(HealthRpc.check, { requestId: request.id }, { service, timeoutMs: CHECK_TIMEOUT_MS }).then(
        (answer) => (answer?.ready ? 'up' : 'down'),
        (error: unknown) => (error instanceof ApiError && FAILED[error.status]) || 'down',
      );
    const services = Object.fromEntries(await Promise.all(SERVICES.map(async (service) => [service, await check(service)] as const)));
    const notReady = SERVICES.filter((service) => services[service] !== 'up');
    if (notReady.length === 0 && !this.shutdown.stopping) return { status: 'up', ready: true, services };
    reply.code(503);
    const reason = this.shutdown.stopping ? 'the gateway is stopping' : `${notReady.join(', ')} not answering`;
    return { ...new ApiError('SERVICE_UNAVAILABLE', `Not ready: ${reason}`).body(request.id), ready: false, services };
  }
}
