import { join } from 'node:path';
import type { KafkaBroker } from '@petstore/stack';

export const STACK_STATE_FILE = join(__dirname, '../../../../tmp/gateway-e2e/stack.json');

/** Everything the stack's processes write (JSON lines after each process's label), for the logs test and for reading after a failure. */
export const STACK_LOG_FILE = join(__dirname, '../../../../tmp/e2e-stack.log');

/** What global setup tells the test files about the stack it started. */
export interface StackState {
  namespace: string;
  /** The run's own Kafka broker (E2E_KAFKA of @petstore/stack). */
  broker: KafkaBroker;
  gatewayUrl: string;
  /** The Prism proxy in front of the gateway, and the document it validates against. */
  prismUrl: string;
  prismPid: number;
  openApiFile: string;
  apiKey: string;
  envs: Record<string, Record<string, string>>;
  urls: Record<string, string>;
  /** Where each process serves GET /metrics (the gateway on its METRICS_PORT). */
  metricsUrls: Record<string, string>;
  extraEnv: Record<string, string>;
  pids: Record<string, number>;
}
