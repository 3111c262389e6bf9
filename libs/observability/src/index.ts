export * from './http';
export * from './log-context';
export * from './logger';
export * from './metrics';
export * from './nest-logger';
