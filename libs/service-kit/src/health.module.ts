import { Controller, Get, HttpCode, Inject, Injectable, Module, Optional, Res, type DynamicModule, type Type } from '@nestjs/common';
import { HealthRpc, type HealthReply } from '@petstore/contracts';
import { RpcHandler } from './rpc-handler.decorator';

/** Something a service needs before it can do useful work: its database, the broker. */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<void>;
}

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
export const SERVICE_NAME = Symbol('SERVICE_NAME');

const CHECK_TIMEOUT_MS = 1000;

/** Whether the process has begun to stop (SIGTERM): from then on its readiness says no. bootstrapService provides it. */
@Injectable()
export class ServiceLifecycle {
  stopping = false;
}

interface Readiness {
  ready: boolean;
  checks: Record<string, 'up' | 'down'>;
  /** Present while the process stops: a load balancer takes it out, though it still answers for SHUTDOWN_DELAY_MS. */
  stopping?: true;
}

@Controller('health')
class HealthController {
  constructor(
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    @Inject(SERVICE_NAME) private readonly service: string,
    @Optional() private readonly lifecycle?: ServiceLifecycle,
  ) {}

  @Get('live')
  @HttpCode(200)
  live(): { status: 'up' } {
    return { status: 'up' };
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: { status(code: number): unknown }): Promise<Readiness & { service: string }> {
    const readiness = this.lifecycle?.stopping ? { ...(await this.readiness()), ready: false, stopping: true as const } : await this.readiness();
    reply.status(readiness.ready ? 200 : 503);
    return { service: this.service, ...readiness };
  }

  /**
   * The gateway's readiness asks each service over its RPC transport, so that transport is checked
   * too. A replica that is stopping still answers what its checks say: it serves the requests the
   * NATS server hands it until it leaves the queue group, and the question is whether the
   * service, not this replica, can serve.
   */
  @RpcHandler(HealthRpc.check)
  async rpcReady(): Promise<HealthReply> {
    return { service: this.service, ready: (await this.readiness()).ready };
  }

  private async readiness(): Promise<Readiness> {
    const results = await Promise.all(
      this.checks.map(async (check) => [check.name, (await passes(check)) ? 'up' : 'down'] as const),
    );
    return { ready: results.every(([, state]) => state === 'up'), checks: Object.fromEntries(results) };
  }
}

async function passes(check: ReadinessCheck): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check.check(), timedOut]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

@Module({})
export class HealthModule {
  static forRoot(service: string, checks: Type<ReadinessCheck>[]): DynamicModule {
    return {
      module: HealthModule,
      controllers: [HealthController],
      providers: [
        ...checks,
        { provide: SERVICE_NAME, useValue: service },
        { provide: READINESS_CHECKS, useFactory: (...instances: ReadinessCheck[]) => instances, inject: checks },
      ],
    };
  }
}
