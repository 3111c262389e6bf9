import './offset-commit-fix.cjs';
import './request-queue-fix.cjs';
import { readFileSync } from 'node:fs';
import { ConfigError, refuseUnsecuredBus, type Env } from '@petstore/config';
import { processLogger } from '@petstore/observability';
import { Kafka, logLevel as LogLevel, type KafkaConfig, type logCreator, type RetryOptions } from 'kafkajs';
import type { Level } from 'pino';

export { LogLevel };

export interface KafkaClientOptions {
  clientId: string;
  brokers: string[] | string;
  /** WARN by default; ERROR keeps test output quiet. */
  logLevel?: LogLevel;
  /** Who the client is to the broker; the process's own (kafkaSecurityFromEnv) unless given. */
  security?: KafkaSecurity;
  /** How often a request or a connection is tried again before failing; CLIENT_RETRY unless given. */
  retry?: RetryOptions;
}

/** A principal's SCRAM credentials and the CA the broker's certificate is checked against. */
export interface KafkaSecurity {
  sasl?: { username: string; password: string };
  /** PEM; when set the connection is TLS and the broker must present a certificate this CA signed. */
  tlsCa?: string;
}

export const KAFKA_SECURITY_VARIABLES = {
  username: 'KAFKA_SASL_USERNAME',
  passwordFile: 'KAFKA_SASL_PASSWORD_FILE',
  tlsCaFile: 'KAFKA_TLS_CA_FILE',
} as const;

/**
 * KAFKA_SASL_USERNAME with the password in KAFKA_SASL_PASSWORD_FILE (a file, so that it never
 * sits in the environment a crash report or `ps e` shows), and KAFKA_TLS_CA_FILE. Read here
 * rather than by every caller, so that each client of a process is the same principal. A missing
 * or unreadable file stops the start with the variable's name; the password itself is never
 * part of a message. A connection without SCRAM or without TLS is refused, except in the
 * benchmark of what they cost (BUS_SECURITY_OFF_BENCH_ONLY), whose broker is plaintext.
 */
export function kafkaSecurityFromEnv(env: Env = process.env): KafkaSecurity {
  const { username: usernameVariable, passwordFile, tlsCaFile } = KAFKA_SECURITY_VARIABLES;
  const username = env[usernameVariable]?.trim();
  const security: KafkaSecurity = {};
  if (username) {
    security.sasl = { username, password: readSecretFile(env, passwordFile, `${usernameVariable} is set`) };
  } else if (env[passwordFile]?.trim()) {
    throw new ConfigError(usernameVariable, `is required when ${passwordFile} is set`);
  }
  if (env[tlsCaFile]?.trim()) security.tlsCa = readSecretFile(env, tlsCaFile, '');
  if (!security.sasl) refuseUnsecuredBus(env, usernameVariable, 'is required (Kafka without SCRAM)');
  if (security.tlsCa === undefined) refuseUnsecuredBus(env, tlsCaFile, 'is required (Kafka without TLS)');
  return security;
}

/**
 * The credentials of `principal` as scripts/kafka.sh keeps them in its secrets folder
 * (KAFKA_SECRETS_DIR): `<principal>.password` and the CA, `ca.pem`. For the tools and tests that
 * act as several principals; a service has its own from KAFKA_SASL_PASSWORD_FILE.
 */
export function principalSecurity(secretsDir: string, principal: string): KafkaSecurity {
  return kafkaSecurityFromEnv({
    [KAFKA_SECURITY_VARIABLES.username]: principal,
    [KAFKA_SECURITY_VARIABLES.passwordFile]: `${secretsDir}/${principal}.password`,
    [KAFKA_SECURITY_VARIABLES.tlsCaFile]: `${secretsDir}/ca.pem`,
  });
}

function readSecretFile(env: Env, variable: string, requiredBecause: string): string {
  const file = env[variable]?.trim();
  if (!file) throw new ConfigError(variable, `is required when ${requiredBecause}`);
  let content: string;
  try {
    content = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(variable, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (!content) throw new ConfigError(variable, `names an empty file (${file})`);
  return content;
}

/*
 * Local brokers restart in seconds: reconnect quickly and give up on a request soon
 * enough that the caller (the relay, the consumer runner) retries with its own backoff.
 */
export const CLIENT_RETRY: RetryOptions = { initialRetryTime: 100, maxRetryTime: 1000, retries: 5, factor: 0.2 };

export function createKafkaClient({
  clientId,
  brokers,
  logLevel = LogLevel.WARN,
  security = kafkaSecurityFromEnv(),
  retry = CLIENT_RETRY,
}: KafkaClientOptions): Kafka {
  return new Kafka({
    clientId,
    brokers: parseBrokers(brokers),
    ...kafkaConnectionSettings(security),
    logLevel,
    logCreator: processLogCreator,
    connectionTimeout: 1000,
    requestTimeout: 10_000,
    retry,
  });
}

/** kafkajs's `ssl` and `sasl` settings for `security`; shared with the scripts that build their own client. */
export function kafkaConnectionSettings({ sasl, tlsCa }: KafkaSecurity): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  return {
    ...(tlsCa ? { ssl: { ca: [tlsCa], rejectUnauthorized: true } } : {}),
    ...(sasl ? { sasl: { mechanism: 'scram-sha-512' as const, ...sasl } } : {}),
  };
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
