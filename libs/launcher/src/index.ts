export * from './launch';
export * from './workspace-root';
