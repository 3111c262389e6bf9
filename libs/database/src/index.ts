export * from './database-options';
export * from './migrate';
export * from './database-readiness.check';
export * from './runtime-role';
export * from './database-unavailable';
export * from './prepared-statement';
export * from './listening-session';
export * from './schema-drift';
