import { CatalogRpc } from './catalog.rpc';
import type { AnyRpcDefinition, RpcService } from './define-rpc';
import { InventoryRpc } from './inventory.rpc';
import { OrdersRpc } from './orders.rpc';
import { HealthRpc } from './rpc';

/** Every process that connects to NATS: the gateway and the three services, each a user of its own. */
export type NatsIdentity = 'gateway' | RpcService;

export const RPC_SERVICES: readonly RpcService[] = ['catalog', 'orders', 'inventory'];
export const NATS_IDENTITIES: readonly NatsIdentity[] = ['gateway', ...RPC_SERVICES];

const SERVED: Record<RpcService, readonly AnyRpcDefinition[]> = {
  catalog: Object.values(CatalogRpc),
  orders: Object.values(OrdersRpc),
  inventory: Object.values(InventoryRpc),
};

/** One request a process sends: the definition, and the service that answers it (the health check is answered by each). */
export interface RpcCall {
  service: RpcService;
  rpc: AnyRpcDefinition;
}

/** What each service answers: its own definitions and the health check. */
export function rpcServedBy(service: RpcService): RpcCall[] {
  return [...SERVED[service], HealthRpc.check].map((rpc) => ({ service, rpc }));
}

/**
 * Who sends which request. The gateway forwards the API to every service and asks each one's
 * health; orders and inventory ask the catalog about a pet their events have not told them of yet
 * (libs/catalog-client). A new RPC is served as soon as it is defined, but sent by nobody until it
 * is listed here, so the NATS server refuses it instead of letting any process send it.
 */
export const RPC_CALLS: Record<NatsIdentity, readonly RpcCall[]> = {
  gateway: RPC_SERVICES.flatMap(rpcServedBy),
  catalog: [],
  orders: [{ service: 'catalog', rpc: CatalogRpc.getPet }],
  inventory: [{ service: 'catalog', rpc: CatalogRpc.getPet }],
};

/**
 * The NATS subject of one RPC: `<prefix><service>.<cmd>`, e.g. `catalog.pets.get`. The service is
 * part of the subject because some patterns (the health check) are answered by every service.
 * The prefix is used as is; by convention it ends with a dot, like KAFKA_NAMESPACE.
 */
export function rpcSubject(prefix: string, service: string, cmd: string): string {
  return `${prefix}${service}.${cmd}`;
}

/** The inbox a user's requests are answered on: its own, so no other user can read its answers. */
export function natsInboxPrefix(user: string): string {
  return `_INBOX.${user}`;
}

export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
}

/** The identities that send requests to `service`. */
export function callersOf(service: RpcService): NatsIdentity[] {
  return NATS_IDENTITIES.filter((identity) => RPC_CALLS[identity].some((call) => call.service === service));
}

/**
 * What one identity may do on NATS, with the stack's subject prefix applied (`*.` for a server that
 * every test suite shares, each suite with a one-token namespace of its own):
 * - a service subscribes to its own subjects, in its own queue group, and publishes answers;
 * - every identity publishes the requests it sends (RPC_CALLS), and reads answers on its own inbox.
 *
 * A service answers on the inboxes of the users that call it (`callerUsers`), which it cannot read.
 * Each RPC client's inbox ends in a random name (libs/rpc), so a service addresses only the inboxes
 * of the clients that sent it requests. nats-server's `allow_responses` (a reply, once, to a
 * request received) is not used: it cost six times the server's throughput on request/reply
 * (nats-server 2.9: 35,000 → 5,400 requests/s on this machine), and the server forgets its grants
 * when it reloads, so answers in flight during a password rotation would be refused.
 */
export function natsPermissions(identity: NatsIdentity, user: string, subjectPrefix: string, callerUsers: readonly string[] = identity === 'gateway' ? [] : callersOf(identity)): NatsPermissions {
  const subject = ({ service, rpc }: RpcCall) => rpcSubject(subjectPrefix, service, rpc.pattern.cmd);
  const sends = RPC_CALLS[identity].map(subject);
  const answerInbox = `${natsInboxPrefix(user)}.>`;
  if (identity === 'gateway') return { publish: { allow: sends }, subscribe: { allow: [answerInbox] } };
  return {
    publish: { allow: [...sends, ...callerUsers.map((caller) => `${natsInboxPrefix(caller)}.>`)] },
    subscribe: { allow: [...rpcServedBy(identity).map((call) => `${subject(call)} ${identity}`), ...(sends.length > 0 ? [answerInbox] : [])] },
  };
}

/** One NATS user: during a rotation an identity has two (the old and the next), with the same permissions. */
export interface NatsUser {
  identity: NatsIdentity;
  user: string;
  password: string;
}

export interface NatsServerConfigOptions {
  /** `host:port` the server listens on. */
  listen: string;
  subjectPrefix: string;
  users: readonly NatsUser[];
  tls: { certFile: string; keyFile: string };
  /** Where the server writes its pid, so a stack tool can ask it to reload. */
  pidFile?: string;
  /**
   * The test suites' server only: the password of `harness`, a user that serves and sends on
   * `<prefix>harness.>` alone, for the tests of the RPC plumbing itself (libs/rpc, libs/service-kit),
   * whose made-up patterns belong to no service.
   */
  harnessPassword?: string;
}

/** The test suites' user of the RPC plumbing tests: its own service name, subjects and inbox, nothing else. */
export const NATS_TEST_HARNESS = 'harness';

function harnessPermissions(subjectPrefix: string): NatsPermissions {
  const own = rpcSubject(subjectPrefix, NATS_TEST_HARNESS, '>');
  const inbox = `${natsInboxPrefix(NATS_TEST_HARNESS)}.>`;
  return { publish: { allow: [own, inbox] }, subscribe: { allow: [`${own} ${NATS_TEST_HARNESS}`, inbox] } };
}

/**
 * The nats-server configuration (its JSON-compatible syntax): TLS on the client port, and one user
 * per identity with its permissions; a connection without a known user and password is refused.
 */
export function natsServerConfig({ listen, subjectPrefix, users, tls, pidFile, harnessPassword }: NatsServerConfigOptions): string {
  for (const identity of NATS_IDENTITIES) {
    if (!users.some((user) => user.identity === identity)) throw new Error(`No NATS user for ${identity}`);
  }
  const config = {
    listen,
    ...(pidFile ? { pid_file: pidFile } : {}),
    tls: { cert_file: tls.certFile, key_file: tls.keyFile, timeout: 2 },
    authorization: {
      users: [
        ...users.map(({ identity, user, password }) => {
          const callerUsers = identity === 'gateway' ? [] : users.filter((caller) => callersOf(identity).includes(caller.identity)).map((caller) => caller.user);
          return { user, password, permissions: natsPermissions(identity, user, subjectPrefix, callerUsers) };
        }),
        ...(harnessPassword ? [{ user: NATS_TEST_HARNESS, password: harnessPassword, permissions: harnessPermissions(subjectPrefix) }] : []),
      ],
    },
  };
  return `# Generated from libs/contracts (RPC_CALLS): users, permissions and TLS of the RPC bus. Holds passwords.\n${JSON.stringify(config, null, 2)}\n`;
}

/**
 * The environment every NATS server of the store runs with (the stacks' own, compose's). One P for
 * Go's scheduler: the server only relays small requests and answers, far below one core's work,
 * and with a second P idle each message woke another thread to take it over. One P cut the
 * server's CPU per order by 13 % at 250/s and 28 % at 1,000/s, and its context switches by half
 * (docs/BENCHMARKS-HISTORY.md, "The NATS server on one P, on the saga").
 */
export const NATS_SERVER_ENVIRONMENT: Readonly<Record<string, string>> = { GOMAXPROCS: '1' };
