export * from './config';
export * from './process-settings';
export * from './fault-injection';
export * from './bus-security';
