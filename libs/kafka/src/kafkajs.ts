// kafkajs as the services run it: request-queue-fix.cjs is applied when this module loads, before
// any client exists. Code that drives kafkajs directly (the bench's saga floor, the chaos checks)
// takes it from here, so both sides of a comparison run the same kafkajs.
import './request-queue-fix.cjs';

export * as kafkajs from 'kafkajs';
