import './request-queue-fix';
import { Kafka, logLevel as LogLevel, type logCreator, type RetryOptions } from 'kafkajs';

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
    logCreator: lineLogCreator,
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

const LEVEL_NAMES: Record<number, string> = {
  [LogLevel.ERROR]: 'ERROR',
  [LogLevel.WARN]: 'WARN',
  [LogLevel.INFO]: 'INFO',
  [LogLevel.DEBUG]: 'DEBUG',
};

/** One line per entry on stderr, in the same spirit as the services' own logs. */
const lineLogCreator: logCreator =
  (configured) =>
  ({ level: reported, namespace, log }) => {
    const { message, timestamp: _timestamp, logger: _logger, ...extra } = log;
    if (EXPECTED.includes(message)) return;
    // Every error answer of the broker is logged by the connection, including the ones the
    // caller expects and retries (a coordinator still loading, a topic created concurrently);
    // real failures reach the caller, which reports them.
    const level = namespace === 'Connection' && message.startsWith('Response ') ? LogLevel.WARN : reported;
    if (level > configured) return;
    const details = Object.keys(extra).length > 0 ? ` ${safeJson(extra)}` : '';
    process.stderr.write(`[kafkajs] ${LEVEL_NAMES[level] ?? level} ${namespace}: ${message}${details}\n`);
  };

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
