// Closed-loop load over the catalog's own RPC transport (the stack's RPC_TRANSPORT): what the
// gateway adds is the difference between this and the same query through HTTP.
import { randomUUID } from 'node:crypto';
import { ClientProxyFactory, Transport } from '@nestjs/microservices';
import { connect, JSONCodec } from 'nats';
import { firstValueFrom } from 'rxjs';
import { natsClientOptions } from '@petstore/stack';
import { percentile } from './figures';
import { natsRequests } from './nats-requests';

type Env = Record<string, string | undefined>;
interface Pattern {
  cmd: string;
}
interface RpcClient {
  send(data: unknown): Promise<unknown>;
  close(): Promise<void> | void;
}
interface Answer {
  err?: unknown;
  response?: unknown;
}

/** Over NATS, as libs/rpc's NatsRpcClient sends it, without its Nest client around it: Nest's packet to `<NATS_SUBJECT_PREFIX><service>.<cmd>`. */
async function natsClient(env: Env, service: string, pattern: Pattern, callerEnv: Env): Promise<RpcClient> {
  const options = natsClientOptions(callerEnv);
  const connection = await connect(options);
  const request = natsRequests(connection, options.inboxPrefix);
  const answers = JSONCodec<Answer>();
  const packets = JSONCodec();
  const subject = `${env.NATS_SUBJECT_PREFIX}${service}.${pattern.cmd}`;
  return {
    async send(data) {
      const answer = answers.decode(await request(subject, packets.encode({ pattern: subject, data, id: randomUUID() })));
      return answer.err ? Promise.reject(answer.err) : answer.response;
    },
    close: () => connection.close(),
  };
}

async function tcpClient(env: Env, pattern: Pattern): Promise<RpcClient> {
  const client = ClientProxyFactory.create({ transport: Transport.TCP, options: { host: '127.0.0.1', port: Number(env.RPC_PORT) } });
  await client.connect();
  return { send: (data) => firstValueFrom(client.send(pattern, data)), close: () => client.close() };
}

export interface RpcLoadOptions {
  /** The service's variables. */
  env: Env;
  /** The variables of the process whose NATS user sends (the gateway's). */
  callerEnv: Env;
  service: string;
  pattern: Pattern;
  payload: () => unknown;
  connections: number;
  durationSeconds: number;
}

export async function rpcLoad({ env, callerEnv, service, pattern, payload, connections, durationSeconds }: RpcLoadOptions) {
  const client = (env.RPC_TRANSPORT ?? 'nats') === 'nats' ? await natsClient(env, service, pattern, callerEnv) : await tcpClient(env, pattern);
  const latencies: number[] = [];
  let errors = 0;
  const deadline = Date.now() + durationSeconds * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      const started = process.hrtime.bigint();
      try {
        await client.send(payload());
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      } catch {
        errors += 1;
      }
    }
  };
  const startedAt = Date.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (Date.now() - startedAt) / 1000;
  await client.close();
  latencies.sort((a, b) => a - b);
  return { requestsPerSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}
