export * from './nats-rpc.server';
export * from './pattern';
export * from './rpc-client';
export * from './rpc-transport.config';
