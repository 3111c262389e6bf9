import { Controller, Get, Req, Res } from '@nestjs/common';
import { HealthPatterns, type HealthReply, type RpcRequest } from '@petstore/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error';
import { Public } from '../operations/operation.decorator';
import { SERVICES, Upstream, type ServiceName } from '../upstream/upstream.service';

const CHECK_TIMEOUT_MS = 1000;

type ServiceState = 'up' | 'down' | 'unavailable' | 'timeout';

@Controller('health')
export class HealthController {
  constructor(private readonly upstream: Upstream) {}

  /** The process answers: nothing else is checked, so a slow service never restarts the gateway. */
  @Get('live')
  @Public()
  live(): { status: 'up' } {
    return { status: 'up' };
  }

  /**
   * Ready when each service answers its RPC health check within a second, which tests the
   * very transport the API uses. Not ready is a 503 whose body is the Error object, with
   * the state of each service added.
   */
  @Get('ready')
  @Public()
  async ready(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<object> {
    const payload: RpcRequest = { requestId: request.id };
    const states = await Promise.all(
      SERVICES.map(async (service): Promise<[ServiceName, ServiceState]> => {
        try {
          const answer = await this.upstream.send<HealthReply>(service, HealthPatterns.check, payload, CHECK_TIMEOUT_MS);
          return [service, answer?.ready ? 'up' : 'down'];
        } catch (error) {
          const status = error instanceof ApiError ? error.status : 500;
          return [service, status === 504 ? 'timeout' : status === 503 ? 'unavailable' : 'down'];
        }
      }),
    );
    const services = Object.fromEntries(states) as Record<ServiceName, ServiceState>;
    const notReady = states.filter(([, state]) => state !== 'up').map(([service]) => service);
    if (notReady.length === 0) return { status: 'up', ready: true, services };
    reply.status(503);
    return {
      ...new ApiError('SERVICE_UNAVAILABLE', `Not ready: ${notReady.join(', ')} not answering`).body(request.id),
      ready: false,
      services,
    };
  }
}
