export * from './config';
export * from './process-settings';
