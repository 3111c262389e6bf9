export * from './http';
export * from './http-trace';
export * from './log-context';
export * from './logger';
export * from './metrics';
export * from './nest-logger';
export * from './rpc-trace';
export * from './tracing';
