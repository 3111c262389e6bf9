import './offset-commit-fix.cjs';
import './request-queue-fix.cjs';
import { processLogger } from '@petstore/observability';
import { Kafka, logLevel as LogLevel, type logCreator, type RetryOptions } from 'kafkajs';
import type { Level } from 'pino';

export { LogLevel };

export interface KafkaClientOptions {
  clientId: string;
  brokers: string[] | string;
  /** WARN by default; ERROR keeps test output quiet. */
  logLevel?: LogLevel;
}

/*
 * Local brokers restart in seconds: reconnect quickly and give up on a request soon
 * enough that the caller (the relay, the consumer runner) retries with its own backoff.
 */
export const CLIENT_RETRY: RetryOptions = { initialRetryTime: 100, maxRetryTime: 1000, retries: 5, factor: 0.2 };

export function createKafkaClient({ clientId, brokers, logLevel = LogLevel.WARN }: KafkaClientOptions): Kafka {
  return new Kafka({
    clientId,
    brokers: parseBrokers(brokers),
    logLevel,
    logCreator: processLogCreator,
    connectionTimeout: 1000,
    requestTimeout: 10_000,
    retry: CLIENT_RETRY,
  });
}

/** `"a:9092, b:9092"` or a list; blanks dropped. */
export function parseBrokers(brokers: string[] | string): string[] {
  const list = (Array.isArray(brokers) ? brokers : brokers.split(','))
    .map((broker) => broker.trim())
    .filter((broker) => broker.length > 0);
  if (list.length === 0) throw new Error('No Kafka broker given');
  return list;
}

/** Log messages that are expected by design and would only be noise. */
const EXPECTED = [
  // The outbox relay bounds producer retries on purpose: it re-sends failed batches itself
  // and consumers deduplicate, so an unbounded retry inside kafkajs would only hide outages.
  'Limiting retries for the idempotent producer may invalidate EoS guarantees',
];

/** kafkajs's levels as the process logger's. */
export function pinoLevelOf(level: LogLevel): Level | undefined {
  switch (level) {
    case LogLevel.ERROR:
      return 'error';
    case LogLevel.WARN:
      return 'warn';
    case LogLevel.INFO:
      return 'info';
    case LogLevel.DEBUG:
      return 'debug';
    default:
      return undefined;
  }
}

/** kafkajs's entries as lines of the process's logger, with their namespace as the context. */
const processLogCreator: logCreator =
  (configured) =>
  ({ level: reported, namespace, log }) => {
    const { message, timestamp: _timestamp, logger: _logger, ...extra } = log;
    if (EXPECTED.includes(message)) return;
    // Every error answer of the broker is logged by the connection, including the ones the
    // caller expects and retries (a coordinator still loading, a topic created concurrently);
    // real failures reach the caller, which reports them.
    const level = namespace === 'Connection' && message.startsWith('Response ') ? LogLevel.WARN : reported;
    const pinoLevel = pinoLevelOf(level);
    if (level > configured || !pinoLevel) return;
    // Under their own key: kafkajs's fields (its protocol `correlationId`, …) are not the stack's.
    processLogger()[pinoLevel]({ context: `kafkajs.${namespace}`, kafkajs: extra }, message);
  };
