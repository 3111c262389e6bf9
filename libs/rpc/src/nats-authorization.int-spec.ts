import { readConfig } from '@petstore/config';
import { NATS_IDENTITIES, NATS_TEST_HARNESS, RPC_CALLS, RPC_SERVICES, rpcServedBy, rpcSubject, type NatsIdentity, type RpcCall } from '@petstore/contracts';
import { connect, ErrorCode, type NatsConnection, type NatsError } from 'nats';
import { randomBytes } from 'node:crypto';
import { natsConnectionOptions, natsCredentialsOf, natsUserEnv, rpcTransportConfigShape, type NatsCredentials } from './rpc-transport.config';

// Every identity against the suites' real NATS server (tools/stack/src/nats.ts, generated from
// libs/contracts): what it may do works, and everything else is refused by the server itself.
const prefix = `authz-${randomBytes(4).toString('hex')}.`;
const servers = (process.env['NATS_SERVERS'] ?? '').split(',');
/** A service, the gateway, or the harness: the test suites' and the benchmark floor's own user. */
type NatsUserName = NatsIdentity | typeof NATS_TEST_HARNESS;
const credentialsOf = (identity: NatsUserName): NatsCredentials => natsCredentialsOf(readConfig(rpcTransportConfigShape, { ...process.env, ...natsUserEnv(identity) }));
const subjectOf = ({ service, rpc }: RpcCall) => rpcSubject(prefix, service, rpc.pattern.cmd);
const ALL_SUBJECTS = RPC_SERVICES.flatMap(rpcServedBy).map(subjectOf);

/** A connection as `identity`, and the permission violations the server reported on it. */
async function connectAs(identity: NatsUserName) {
  const connection = await connect({ servers, name: `authz-${identity}`, ...natsConnectionOptions(credentialsOf(identity)) });
  const violations: Array<{ operation: string; subject: string }> = [];
  void (async () => {
    for await (const status of connection.status()) {
      const context = (status as { permissionContext?: { operation: string; subject: string } }).permissionContext;
      if (status.data === ErrorCode.PermissionsViolation && context) violations.push({ operation: context.operation, subject: context.subject });
    }
  })();
  return { connection, violations };
}

/** The error `connect` ends with, as nats.js reports it. */
async function connectError(options: Parameters<typeof connect>[0]): Promise<string> {
  try {
    const connection = await connect({ servers, reconnect: false, ...options });
    await connection.close();
    return 'connected';
  } catch (error) {
    return (error as NatsError).code ?? (error as Error).message;
  }
}

describe('NATS users and permissions, on the real server', () => {
  jest.setTimeout(30_000);
  const connections: NatsConnection[] = [];
  const as = async (identity: NatsUserName) => {
    const opened = await connectAs(identity);
    connections.push(opened.connection);
    return opened;
  };

  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
  });

  describe('connecting', () => {
    const { user, password, caFile } = credentialsOf('orders');

    it('refuses a connection without credentials, or with a wrong password', async () => {
      expect(await connectError({ tls: { caFile } })).toBe(ErrorCode.AuthorizationViolation);
      expect(await connectError({ tls: { caFile }, user, pass: `${password}-wrong` })).toBe(ErrorCode.AuthorizationViolation);
      expect(await connectError({ tls: { caFile }, user: 'nobody', pass: password })).toBe(ErrorCode.AuthorizationViolation);
    });

    it('is TLS only: a client that does not know the stack CA does not trust the server', async () => {
      expect(await connectError({ user, pass: password, tls: {} })).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    });

    it('takes the right password', async () => {
      expect(await connectError({ ...natsConnectionOptions(credentialsOf('orders')) })).toBe('connected');
    });
  });

  it.each(NATS_IDENTITIES)('%s may publish only the requests it sends: every other RPC subject is refused, and no service receives it', async (identity) => {
    const allowed = new Set(RPC_CALLS[identity].map(subjectOf));
    const forbidden = ALL_SUBJECTS.filter((subject) => !allowed.has(subject));
    // Each service listens on its own subjects, as it does in production, and counts what arrives.
    const received: string[] = [];
    for (const service of RPC_SERVICES) {
      const { connection } = await as(service);
      for (const call of rpcServedBy(service)) connection.subscribe(subjectOf(call), { queue: service, callback: (_error, msg) => received.push(msg.subject) });
      await connection.flush();
    }
    const { connection, violations } = await as(identity);
    for (const subject of forbidden) connection.publish(subject, new Uint8Array([1]));
    // A service answers those who call it only: the catalog, asked by nobody but the gateway and the two others, is the one inbox nobody may write to.
    if (identity !== 'gateway') connection.publish('_INBOX.catalog.stolen', new Uint8Array([1]));
    await connection.flush();
    await new Promise((resolve) => setTimeout(resolve, 200));

    const expectedRefusals = [...forbidden, ...(identity === 'gateway' ? [] : ['_INBOX.catalog.stolen'])];
    expect(violations.filter((v) => v.operation === 'publish').map((v) => v.subject).sort()).toEqual(expectedRefusals.sort());
    expect(received).toEqual([]);
  });

  it.each(NATS_IDENTITIES)("%s may not subscribe to another service's subjects, nor read another identity's answers", async (identity) => {
    const own = new Set(identity === 'gateway' ? [] : rpcServedBy(identity).map(subjectOf));
    const others = ALL_SUBJECTS.filter((subject) => !own.has(subject));
    const otherInboxes = NATS_IDENTITIES.filter((other) => other !== identity).map((other) => `_INBOX.${other}.>`);
    const { connection, violations } = await as(identity);
    const refused: string[] = [];
    for (const subject of [...others, ...otherInboxes]) {
      connection.subscribe(subject, { callback: (error) => error && refused.push(subject) });
    }
    await connection.flush();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const expected = [...others, ...otherInboxes].sort();
    expect(refused.sort()).toEqual(expected);
    expect(violations.filter((v) => v.operation === 'subscription').map((v) => v.subject).sort()).toEqual(expected);
  });

  it("a service may serve its subjects only in its own queue group", async () => {
    const { connection } = await as('catalog');
    const refused: string[] = [];
    const subject = rpcSubject(prefix, 'catalog', 'pets.get');
    connection.subscribe(subject, { queue: 'intruders', callback: (error) => error && refused.push(subject) });
    await connection.flush();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(refused).toEqual([subject]);
  });

  it("the harness may not send to, serve or listen on any service's subjects; it serves its own only in its own queue group", async () => {
    const { connection, violations } = await as(NATS_TEST_HARNESS);
    const own = rpcSubject(prefix, NATS_TEST_HARNESS, 'floor-place');
    const refused: string[] = [];
    for (const subject of ALL_SUBJECTS) connection.publish(subject, new Uint8Array([1]));
    for (const subject of [...ALL_SUBJECTS, own]) {
      connection.subscribe(subject, { queue: subject === own ? 'intruders' : NATS_TEST_HARNESS, callback: (error) => error && refused.push(subject) });
    }
    await connection.flush();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(violations.filter((v) => v.operation === 'publish').map((v) => v.subject).sort()).toEqual([...ALL_SUBJECTS].sort());
    expect(refused.sort()).toEqual([...ALL_SUBJECTS, own].sort());
  });

  it.each(NATS_IDENTITIES)('%s can do its job: every request it sends is answered by the service that serves it', async (identity) => {
    for (const service of RPC_SERVICES) {
      const { connection } = await as(service);
      for (const call of rpcServedBy(service)) {
        connection.subscribe(subjectOf(call), { queue: service, callback: (_error, msg) => msg.respond(new TextEncoder().encode(`${service}:${call.rpc.pattern.cmd}`)) });
      }
      await connection.flush();
    }
    const { connection, violations } = await as(identity);
    const answers: string[] = [];
    for (const call of RPC_CALLS[identity]) {
      const reply = await connection.request(subjectOf(call), new Uint8Array(), { timeout: 5000 });
      answers.push(new TextDecoder().decode(reply.data));
    }
    expect(answers).toEqual(RPC_CALLS[identity].map(({ service, rpc }) => `${service}:${rpc.pattern.cmd}`));
    expect(violations).toEqual([]);
  });
});
