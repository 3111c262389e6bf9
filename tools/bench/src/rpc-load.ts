// Closed-loop load over the catalog's own RPC transport (the stack's RPC_TRANSPORT): what the
// gateway adds is the difference between this and the same query through HTTP.
import { randomUUID } from 'node:crypto';
import { ClientProxyFactory, Transport } from '@nestjs/microservices';
import { connect, createInbox, JSONCodec } from 'nats';
import { firstValueFrom } from 'rxjs';
import { natsClientOptions } from '@petstore/stack';
import { percentile } from './figures';

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

/**
 * Over NATS, as libs/rpc's NatsRpcClient sends it, without its Nest client around it: Nest's
 * packet to `<NATS_SUBJECT_PREFIX><service>.<cmd>`, answered on the connection's one wildcard
 * inbox and matched by a token, the requests of one event-loop turn published together.
 */
async function natsClient(env: Env, service: string, pattern: Pattern, callerEnv: Env): Promise<RpcClient> {
  const options = natsClientOptions(callerEnv);
  const connection = await connect(options);
  const codec = JSONCodec<Answer>();
  const subject = `${env.NATS_SUBJECT_PREFIX}${service}.${pattern.cmd}`;
  const inbox = createInbox(options.inboxPrefix);
  const waiting = new Map<string, (answer: Answer) => void>();
  let outgoing: { data: Uint8Array; reply: string }[] = [];
  let nextToken = 0;
  connection.subscribe(`${inbox}.*`, {
    callback: (_error, msg) => {
      const token = msg.subject.slice(inbox.length + 1);
      const answered = waiting.get(token);
      waiting.delete(token);
      answered?.(codec.decode(msg.data));
    },
  });
  const packets = JSONCodec();
  return {
    send(data) {
      const token = String(nextToken++);
      const reply = new Promise<Answer>((resolve) => waiting.set(token, resolve));
      if (outgoing.push({ data: packets.encode({ pattern: subject, data, id: randomUUID() }), reply: `${inbox}.${token}` }) === 1) {
        setImmediate(() => {
          for (const message of outgoing) connection.publish(subject, message.data, { reply: message.reply });
          outgoing = [];
        });
      }
      return reply.then((answer) => (answer.err ? Promise.reject(answer.err) : answer.response));
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
