import { ConfigError, readConfig } from '@petstore/config';
import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { commandOf } from './pattern';
import { RpcNotConnectedError, RpcTimeoutError, transportFailureOf } from './rpc-client';
import { rpcSubject, rpcTransportConfigShape } from './rpc-transport.config';

describe('RPC transport configuration', () => {
  it('defaults to NATS on this machine, with no prefix', () => {
    expect(readConfig(rpcTransportConfigShape, {})).toEqual({ rpcTransport: 'nats', natsServers: ['nats://127.0.0.1:4222'], natsSubjectPrefix: '' });
  });

  it('reads every variable, and refuses a prefix NATS would split oddly', () => {
    expect(readConfig(rpcTransportConfigShape, { RPC_TRANSPORT: 'tcp', NATS_SERVERS: 'nats://a:4222,nats://b:4222', NATS_SUBJECT_PREFIX: 'e2e-1a2b.' })).toEqual({
      rpcTransport: 'tcp',
      natsServers: ['nats://a:4222', 'nats://b:4222'],
      natsSubjectPrefix: 'e2e-1a2b.',
    });
    expect(() => readConfig(rpcTransportConfigShape, { RPC_TRANSPORT: 'grpc' })).toThrow(/RPC_TRANSPORT must be one of nats, tcp/);
    expect(() => readConfig(rpcTransportConfigShape, { NATS_SUBJECT_PREFIX: 'a b>' })).toThrow(ConfigError);
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
