export * from './bounds';
export * from './date-time';
export * from './errors';
export * from './model';
export * from './rpc';
export * from './events';
export * from './asyncapi';
