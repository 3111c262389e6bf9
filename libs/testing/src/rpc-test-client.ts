import type { RpcErrorBody } from '@petstore/contracts';
import { createRpcClient, type RpcTransportConfig } from '@petstore/rpc';
import { randomUUID } from 'node:crypto';

/** Longer than any answer a test waits for, shorter than the integration suites' Jest timeout. */
const TEST_TIMEOUT_MS = 20_000;

/** A service's RPC transport, reached as the gateway reaches it. */
export interface RpcTestClient {
  /** Sends a message (with a fresh requestId) and resolves with the reply; rejects with the RPC error body. */
  send<T>(pattern: { cmd: string }, payload: object): Promise<T>;
  /** Sends a message that must fail and resolves with its RPC error body. */
  refusal(pattern: { cmd: string }, payload: object): Promise<RpcErrorBody>;
  close(): Promise<void>;
}

/** `service` names the queue group (NATS); `host` and `port` the address (RPC_TRANSPORT=tcp). */
export async function connectRpcClient(transport: RpcTransportConfig, service: string, host: string, port: number): Promise<RpcTestClient> {
  const client = createRpcClient(transport, service, { host, port }, 'test');
  await client.connect();

  const send = <T>(pattern: { cmd: string }, payload: object) => client.request<T>(pattern, { requestId: randomUUID(), ...payload }, TEST_TIMEOUT_MS);

  return {
    send,
    async refusal(pattern, payload) {
      let reply: unknown;
      try {
        reply = await send<unknown>(pattern, payload);
      } catch (error) {
        return error as RpcErrorBody;
      }
      throw new Error(`Expected ${pattern.cmd} to fail, it answered ${JSON.stringify(reply)}`);
    },
    async close() {
      await client.close();
    },
  };
}
