export * from './define-rpc';
export * from './rpc';
export * from './catalog.rpc';
export * from './orders.rpc';
export * from './inventory.rpc';
export * from './nats-authorization';
export * from './nats-chart-file';
