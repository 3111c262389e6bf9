export * from './event-probe';
export * from './test-environment';
