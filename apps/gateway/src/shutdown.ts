import { Injectable } from '@nestjs/common';
import { int } from '@petstore/config';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { setTimeout as sleep } from 'node:timers/promises';

/** How the gateway stops (RULES of every process): read with the rest of the configuration in `main.ts`. */
export const shutdownConfigShape = {
  /** How long the gateway keeps serving after SIGTERM, not ready, so that load balancers take it out first. */
  shutdownDelayMs: int('SHUTDOWN_DELAY_MS', 0, { min: 0, max: 600_000 }),
  /** How long requests already taken may take to finish before their connections are closed. */
  drainTimeoutMs: int('DRAIN_TIMEOUT_MS', 10_000, { min: 0, max: 600_000 }),
};
export type ShutdownTimings = { shutdownDelayMs: number; drainTimeoutMs: number };

/** Where the gateway is in stopping: readiness and the request gate read it. */
@Injectable()
export class Shutdown {
  /** From SIGTERM on: `/health/ready` answers 503, everything else is still served. */
  stopping = false;
  /** From the end of the delay on: the server takes no new connections and the gate answers 503 to any request still arriving. */
  draining = false;
}

/**
 * Stops the gateway without dropping a request it took: not ready at once, serving for
 * `shutdownDelayMs`, then no new work while what is in flight finishes (at most
 * `drainTimeoutMs`, then its connections are closed), then the RPC client closes.
 */
export async function stopGracefully(app: NestFastifyApplication, { shutdownDelayMs, drainTimeoutMs }: ShutdownTimings): Promise<void> {
  const shutdown = app.get(Shutdown);
  shutdown.stopping = true;
  await sleep(shutdownDelayMs);
  shutdown.draining = true;
  const server = app.getHttpServer();
  const overdue = setTimeout(() => server.closeAllConnections(), drainTimeoutMs);
  try {
    await app.close();
  } finally {
    clearTimeout(overdue);
  }
}
