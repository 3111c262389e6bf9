export * from './log-context';
