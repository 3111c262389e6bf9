// The stacks' Kafka brokers (scripts/kafka.sh) and who each process is to them.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KAFKA_ADMIN_PRINCIPAL, kafkaPrincipals } from '@petstore/contracts';
import { CACHE, ROOT } from './paths';

/** A broker of scripts/kafka.sh other than the default one (9092). */
export interface KafkaBroker {
  port: number;
  controllerPort: number;
  dataDir: string;
  /** The security benchmark's broker, which admits anyone (scripts/kafka.sh KAFKA_PLAINTEXT). */
  plaintext?: boolean;
}

/**
 * The end-to-end tests run their own broker: their fault tests stop it, which must not
 * disturb a development stack or other suites using the default one.
 */
export const E2E_KAFKA: KafkaBroker = {
  port: 19092,
  controllerPort: 19093,
  dataDir: path.join(CACHE, 'kafka-data-e2e'),
};

/** Where scripts/kafka.sh keeps a broker's CA and the principals' passwords (its KAFKA_SECRETS_DIR). */
export function kafkaSecretsDir(broker?: { dataDir: string }): string {
  if (broker) return path.join(broker.dataDir, 'secrets');
  return process.env.KAFKA_SECRETS_DIR ?? path.join(process.env.KAFKA_DATA_DIR ?? path.join(CACHE, 'kafka-data'), 'secrets');
}

/** kafkajs's `ssl` and `sasl` settings of `principal`, as libs/kafka's kafkaConnectionSettings makes them from a process's variables. */
export function kafkaClientAuth(secretsDir: string, principal: string) {
  const read = (file: string) => fs.readFileSync(path.join(secretsDir, file), 'utf8').trim();
  return {
    ssl: { ca: [read('ca.pem')], rejectUnauthorized: true },
    sasl: { mechanism: 'scram-sha-512' as const, username: principal, password: read(`${principal}.password`) },
  };
}

/** The variables that make a process `principal` to Kafka (libs/kafka kafkaSecurityFromEnv). */
export function kafkaCredentials(secretsDir: string, principal: string): Record<string, string> {
  return {
    KAFKA_SASL_USERNAME: principal,
    KAFKA_SASL_PASSWORD_FILE: path.join(secretsDir, `${principal}.password`),
    KAFKA_TLS_CA_FILE: path.join(secretsDir, 'ca.pem'),
  };
}

/**
 * What every run of scripts/kafka.sh is given: the principals a broker gives SCRAM credentials to
 * (the administrator and each row of libs/contracts' access table), which it would otherwise ask
 * tools/stack for itself.
 */
export function kafkaScriptEnv(): Record<string, string> {
  return { KAFKA_PRINCIPALS: [KAFKA_ADMIN_PRINCIPAL, ...kafkaPrincipals()].join(' ') };
}

/** The environment of scripts/kafka.sh acting on the default broker or `broker`. */
export function kafkaShEnv(broker?: KafkaBroker): NodeJS.ProcessEnv {
  const env = { ...process.env, ...kafkaScriptEnv() };
  if (broker) {
    Object.assign(env, { KAFKA_PORT: String(broker.port), KAFKA_CONTROLLER_PORT: String(broker.controllerPort), KAFKA_DATA_DIR: broker.dataDir });
    if (broker.plaintext) Object.assign(env, { KAFKA_PLAINTEXT: 'true', BUS_SECURITY_OFF_BENCH_ONLY: 'true' });
  }
  return env;
}

/** The script that fetches, starts and stops the stacks' brokers. */
export const KAFKA_SH = path.join(ROOT, 'scripts/kafka.sh');

/** `scripts/kafka.sh <command>` for the default broker or `broker`, blocking. */
export function kafka(command: string, broker?: KafkaBroker): void {
  runKafkaShSync([command], kafkaShEnv(broker), `Kafka ${command}`);
}

/** scripts/kafka.sh with `args`, blocking, its output shown; throws naming `what` when it fails. */
export function runKafkaShSync(args: string[], env: NodeJS.ProcessEnv, what: string): void {
  const result = spawnSync('bash', [KAFKA_SH, ...args], { stdio: 'inherit', env });
  if (result.status !== 0) throw new Error(`${what} failed (see the messages above)`);
}

/** The same, without blocking the load a fault test runs meanwhile; resolves with the output. */
export function kafkaAsync(command: string, broker?: KafkaBroker): Promise<string> {
  return runKafkaSh([command], kafkaShEnv(broker));
}

/** scripts/kafka.sh with `args`, its output collected; rejects with that output when it fails. */
export function runKafkaSh(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [KAFKA_SH, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(output.trim()) : reject(new Error(`kafka.sh ${args.join(' ')} failed:\n${output}`))));
  });
}

export function ensureKafka(broker?: KafkaBroker): void {
  kafka('start', broker);
}
