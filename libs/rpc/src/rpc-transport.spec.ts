import { ConfigError, readConfig } from '@petstore/config';
import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { commandOf } from './pattern';
import { RpcNotConnectedError, RpcTimeoutError, transportFailureOf } from './rpc-client';
import { NATS_UNSECURED, natsConnectionOptions, natsCredentialsOf, rpcSubject, rpcTransportConfigShape } from './rpc-transport.config';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('RPC transport configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rpc-config-'));
  const passwordFile = join(dir, 'orders.password');
  const caFile = join(dir, 'ca.pem');
  writeFileSync(passwordFile, 's3cret\n', { mode: 0o600 });
  writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\n');
  const credentials = { NATS_USER: 'orders', NATS_PASSWORD_FILE: passwordFile, NATS_TLS_CA_FILE: caFile };

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("defaults to the development stack's NATS, with no prefix, as the user the variables name", () => {
    expect(readConfig(rpcTransportConfigShape, credentials)).toEqual({
      rpcTransport: 'nats',
      natsServers: ['nats://127.0.0.1:4322'],
      natsSubjectPrefix: '',
      nats: { user: 'orders', password: 's3cret', caFile },
    });
  });

  it('refuses to connect to NATS without a user, a readable password and the CA, naming the variable', () => {
    expect(() => readConfig(rpcTransportConfigShape, {})).toThrow('Invalid configuration: NATS_USER is required with RPC_TRANSPORT=nats but not set');
    expect(() => readConfig(rpcTransportConfigShape, { ...credentials, NATS_USER: 'a b' })).toThrow(/^Invalid configuration: NATS_USER must be/);
    expect(() => readConfig(rpcTransportConfigShape, { ...credentials, NATS_PASSWORD_FILE: '' })).toThrow(/NATS_PASSWORD_FILE is required/);
    expect(() => readConfig(rpcTransportConfigShape, { ...credentials, NATS_PASSWORD_FILE: join(dir, 'missing') })).toThrow('Invalid configuration: NATS_PASSWORD_FILE cannot be read (ENOENT)');
    expect(() => readConfig(rpcTransportConfigShape, { ...credentials, NATS_TLS_CA_FILE: join(dir, 'missing') })).toThrow('Invalid configuration: NATS_TLS_CA_FILE cannot be read (ENOENT)');
  });

  it('refuses the TCP transport, which has no authentication, unless a benchmark says so', () => {
    expect(() => readConfig(rpcTransportConfigShape, { RPC_TRANSPORT: 'tcp' })).toThrow(/^Invalid configuration: RPC_TRANSPORT tcp has no authentication .* RPC_TCP_BENCH_ONLY=true/);
    expect(readConfig(rpcTransportConfigShape, { RPC_TRANSPORT: 'tcp', RPC_TCP_BENCH_ONLY: 'true' })).toMatchObject({ rpcTransport: 'tcp', nats: undefined });
  });

  it('refuses NATS without a user and TLS unless the benchmark of their cost says so', () => {
    expect(() => readConfig(rpcTransportConfigShape, { BUS_SECURITY_OFF_BENCH_ONLY: 'false' })).toThrow(
      /^Invalid configuration: NATS_USER is required with RPC_TRANSPORT=nats but not set: .*BUS_SECURITY_OFF_BENCH_ONLY=true/,
    );
    const unsecured = readConfig(rpcTransportConfigShape, { BUS_SECURITY_OFF_BENCH_ONLY: 'true', NATS_SERVERS: 'nats://127.0.0.1:24323' });
    expect(unsecured).toMatchObject({ rpcTransport: 'nats', nats: NATS_UNSECURED });
    expect(natsConnectionOptions(NATS_UNSECURED)).toEqual({ inboxPrefix: '_INBOX' });
    expect(() => natsCredentialsOf(unsecured)).toThrow(/without credentials/);
    // Given credentials, the benchmark's variable changes nothing.
    expect(readConfig(rpcTransportConfigShape, { ...credentials, BUS_SECURITY_OFF_BENCH_ONLY: 'true' }).nats).toEqual({ user: 'orders', password: 's3cret', caFile });
  });

  it('reads every variable, and refuses a prefix NATS would split oddly', () => {
    expect(readConfig(rpcTransportConfigShape, { ...credentials, NATS_SERVERS: 'nats://a:4222,nats://b:4222', NATS_SUBJECT_PREFIX: 'e2e-1a2b.' })).toMatchObject({
      rpcTransport: 'nats',
      natsServers: ['nats://a:4222', 'nats://b:4222'],
      natsSubjectPrefix: 'e2e-1a2b.',
    });
    expect(() => readConfig(rpcTransportConfigShape, { RPC_TRANSPORT: 'grpc' })).toThrow(/RPC_TRANSPORT must be one of nats, tcp/);
    expect(() => readConfig(rpcTransportConfigShape, { ...credentials, NATS_SUBJECT_PREFIX: 'a b>' })).toThrow(ConfigError);
  });
});

describe('subjects', () => {
  it('name the service, so that a pattern every service answers reaches the one asked', () => {
    expect(rpcSubject('', 'catalog', 'health.check')).toBe('catalog.health.check');
    expect(rpcSubject('e2e-1a2b.', 'orders', 'orders.place')).toBe('e2e-1a2b.orders.orders.place');
  });

  it('take the command out of the pattern as Nest serializes it', () => {
    expect(commandOf('{"cmd":"pets.get"}')).toBe('pets.get');
    expect(commandOf('plain')).toBe('plain');
  });
});

describe('what a failed call says about the request', () => {
  it('"no responders" and no TCP connection: not sent', () => {
    expect(transportFailureOf(new EmptyResponseException('catalog.pets.get'))).toBe('not-sent');
    expect(transportFailureOf(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe('not-sent');
    expect(transportFailureOf(new RpcNotConnectedError('No connection to NATS for catalog within 400 ms'))).toBe('not-sent');
  });

  it('a TCP connection that broke after sending: outcome unknown', () => {
    expect(transportFailureOf(new Error('Connection closed'))).toBe('outcome-unknown');
    expect(transportFailureOf(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe('outcome-unknown');
  });

  it('anything else is not the transport\'s to judge', () => {
    expect(transportFailureOf({ status: 404, code: 'PET_NOT_FOUND', message: 'x' })).toBeUndefined();
    expect(transportFailureOf(new RpcTimeoutError('No answer from catalog.pets.get within 400 ms'))).toBeUndefined();
  });
});
