export * from './built-service';
export * from './event-probe';
export * from './event-publisher';
export * from './eventually';
export * from './free-port';
export * from './rpc-test-client';
export * from './service-under-test';
export * from './test-environment';
