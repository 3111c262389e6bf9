export * from './bootstrap';
export * from './domain-error';
export * from './health.module';
export * from './rpc-error.filter';
export * from './service-config';
