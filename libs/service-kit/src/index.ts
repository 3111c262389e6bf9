export * from './bootstrap';
export * from './domain-error';
export * from './health.module';
export * from './paging';
export * from './path-id';
export * from './rpc-error.filter';
export * from './service-config';
export * from './run-service';
