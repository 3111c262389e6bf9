import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, RpcException, ServerTCP } from '@nestjs/microservices';
import { CatalogRpc, InventoryRpc, OrdersRpc, type RpcErrorBody, type RpcService } from '@petstore/contracts';
import { natsCredentialsOf, NatsRpcServer, type RpcTransportConfig } from '@petstore/rpc';
import { testTransport } from '@petstore/testing';
import type { NatsConnection } from 'nats';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * The transport the test run asks for (RPC_TRANSPORT, NATS_SERVERS), on subjects of this test
 * file's own, as the gateway's NATS user: the gateway under test uses the same, unless a test
 * gives it another prefix. Each fake service connects as the service it stands in for.
 */
export const fakeTransport: RpcTransportConfig = testTransport('gateway', `gateway-test-${randomBytes(4).toString('hex')}.`);

const DEFINITIONS = [...Object.values(CatalogRpc), ...Object.values(OrdersRpc), ...Object.values(InventoryRpc)];

/** The service that answers these patterns (the health check belongs to every service). */
function serviceOf(patterns: ReadonlyArray<{ cmd: string }>): RpcService {
  const services = new Set(patterns.map(({ cmd }) => DEFINITIONS.find((definition) => definition.pattern.cmd === cmd)?.service).filter(Boolean));
  if (services.size !== 1) throw new Error(`A fake service answers the patterns of one service, not of ${services.size}`);
  return [...services][0] as RpcService;
}

export type FakeHandler = (data: Record<string, unknown>) => unknown;

/** A refusal as a service sends it: the RPC error body. */
export function rpcError(status: number, code: RpcErrorBody['code'], message: string): RpcException {
  return new RpcException({ status, code, message });
}

/** A port nobody listens on (free a moment ago). */
export async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A real Nest microservice on the run's RPC transport (NATS, in the queue group of the service
 * whose patterns it answers; or TCP on a port of its own) that answers the given patterns with
 * whatever the test sets, and remembers what it received. Only for gateway-level tests: the real
 * services are exercised end to end elsewhere.
 */
export class FakeService {
  readonly received: Array<{ cmd: string; data: Record<string, unknown> }> = [];
  private readonly handlers = new Map<string, FakeHandler>();
  private app?: INestMicroservice;
  private nats?: NatsRpcServer;
  private readonly sockets = new Set<Socket>();
  /** The TCP port (RPC_TRANSPORT=tcp). */
  port = 0;
  readonly service: RpcService;

  constructor(private readonly patterns: ReadonlyArray<{ cmd: string }>) {
    this.service = serviceOf(patterns);
  }

  on(pattern: { cmd: string }, handler: FakeHandler): this {
    this.handlers.set(pattern.cmd, handler);
    return this;
  }

  reset(): void {
    this.handlers.clear();
    this.received.length = 0;
  }

  /** Joins the service's queue group; over TCP, starts on a free port, or on the port it had (a restart). */
  async start(): Promise<this> {
    if (fakeTransport.rpcTransport === 'nats') {
      const transport = testTransport(this.service, fakeTransport.natsSubjectPrefix);
      const { natsServers: servers, natsSubjectPrefix: subjectPrefix } = transport;
      this.nats = new NatsRpcServer({ servers, subjectPrefix, service: this.service, credentials: natsCredentialsOf(transport) });
      this.app = await NestFactory.createMicroservice(this.module(), { strategy: this.nats, logger: false });
      await this.app.listen();
      return this;
    }
    const server = new ServerTCP({ host: '127.0.0.1', port: this.port });
    this.app = await NestFactory.createMicroservice(this.module(), { strategy: server, logger: false });
    await this.app.listen();
    const tcp = server.unwrap<Server>();
    tcp.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.port = (tcp.address() as AddressInfo).port;
    return this;
  }

  /** Breaks every connection, as a service that crashes while it handles a request. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
    // Over NATS the connection is to the NATS server: the gateway's request is lost with it.
    void this.nats?.unwrap<NatsConnection>().reconnect();
  }

  async stop(): Promise<void> {
    await this.app?.close();
    this.app = undefined;
  }

  private handle(cmd: string, data: Record<string, unknown>): unknown {
    this.received.push({ cmd, data });
    const handler = this.handlers.get(cmd);
    if (!handler) throw rpcError(500, 'INTERNAL_ERROR', `no fake answer for ${cmd}`);
    return handler(data);
  }

  private module(): new () => unknown {
    const handle = (cmd: string, data: Record<string, unknown>) => this.handle(cmd, data);
    class FakeController {}
    this.patterns.forEach(({ cmd }, index) => {
      const name = `handle${index}`;
      Object.defineProperty(FakeController.prototype, name, {
        value: (data: Record<string, unknown>) => handle(cmd, data),
        writable: true,
        configurable: true,
      });
      MessagePattern({ cmd })(FakeController.prototype, name, Object.getOwnPropertyDescriptor(FakeController.prototype, name) as PropertyDescriptor);
    });
    Controller()(FakeController);
    class FakeModule {}
    Module({ controllers: [FakeController] })(FakeModule);
    return FakeModule;
  }
}
