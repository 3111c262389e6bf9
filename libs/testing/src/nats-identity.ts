import { readConfig, type Env } from '@petstore/config';
import type { NATS_TEST_HARNESS, NatsIdentity } from '@petstore/contracts';
import { natsUserEnv, rpcTransportConfigShape, type RpcTransportConfig } from '@petstore/rpc';

/** The variables a process connects to the suites' NATS server with, as `identity` (its own user and permissions). */
export function natsIdentityEnv(identity: NatsIdentity | typeof NATS_TEST_HARNESS): Env {
  return natsUserEnv(identity);
}

/** The RPC transport the run asks for (RPC_TRANSPORT, NATS_SERVERS), as `identity`, on `subjectPrefix`. */
export function testTransport(identity: NatsIdentity | typeof NATS_TEST_HARNESS, subjectPrefix: string, env: Env = process.env): RpcTransportConfig {
  return readConfig(rpcTransportConfigShape, { ...env, ...natsIdentityEnv(identity), NATS_SUBJECT_PREFIX: subjectPrefix });
}
