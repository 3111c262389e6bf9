export * from './log-context';
export * from './metrics';
