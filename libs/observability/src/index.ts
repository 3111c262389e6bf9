export * from './http-trace';
export * from './log-context';
export * from './metrics';
export * from './rpc-trace';
export * from './tracing';
