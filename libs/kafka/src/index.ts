export * from './consumer-runner';
export * from './dead-letters';
export * from './kafka-client';
export * from './namespace';
export * from './producer';
export * from './provision-topics';
