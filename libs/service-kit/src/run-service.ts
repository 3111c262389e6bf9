import type { Options } from '@mikro-orm/postgresql';
import type { DynamicModule } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { readConfigOrExit, type ConfigShape } from '@petstore/config';
import { deadLetterTopic } from '@petstore/contracts';
import { migrate, roleOf } from '@petstore/database';
import { LogLevel, createKafkaClient, namespaced, provisionKafka, runDeadLetterCommand } from '@petstore/kafka';
import { processLogger, useProcessLogger } from '@petstore/observability';
import { bootstrapService } from './bootstrap';
import { BUS_SECRETS_ROOT, COMPOSE_KAFKA_HOSTS, provisionBusSecrets } from './bus-secrets';
import { DATABASE_PASSWORD_FILE, type ServiceConfig } from './service-config';

export interface ServiceDefinition<C extends ServiceConfig> {
  name: string;
  configShape: ConfigShape<C>;
  databaseOptions(databaseUrl: string): Options;
  appModule(config: C): DynamicModule;
}

/**
 * The whole of a service's `main.ts`. `node main.js migrate` is the explicit start-up step that
 * creates the database if missing and applies the migrations, then exits; `node main.js
 * kafka-provision` creates the Kafka topics and ACLs (as the administrator); `node main.js dlt ...`
 * are the operator's dead-letter tools (docs/OPERATIONS.md); `node main.js bus-secrets` makes the
 * compose stack's NATS, Redis and Kafka passwords, certificates and server configuration (it needs none of
 * the service's settings); `node main.js` serves.
 */
export function runService<C extends ServiceConfig>(service: ServiceDefinition<C>): void {
  if (process.argv[2] === 'bus-secrets') {
    provisionBusSecrets({ root: BUS_SECRETS_ROOT, natsHost: 'nats', natsPort: 4222, redisHost: 'redis', kafkaHosts: COMPOSE_KAFKA_HOSTS });
    process.stdout.write('NATS, Redis and Kafka credentials, certificates and configuration are in place\n');
    process.exit(0);
  }
  if (process.argv[2] === 'migrate') {
    runMigrate(service);
    return;
  }
  if (process.argv[2] === 'kafka-provision') {
    const config = readKafkaConfig(service);
    kafkaProvisionCommand(service.name, config).then(process.exit, exitOnFailure(service.name));
    return;
  }
  if (process.argv[2] === 'dlt') {
    const config = readKafkaConfig(service);
    deadLetterCommand(service.name, config, process.argv.slice(3)).then(process.exit, exitOnFailure(service.name));
    return;
  }
  const config = readConfigOrExit(service.configShape);
  useProcessLogger({ service: service.name, level: config.logLevel });
  bootstrapService(service.appModule(config), config, service.name).catch(exitOnFailure(service.name));
}

/**
 * `main.js migrate` reads the database settings alone: it has no use for the RPC bus, so a migrate
 * step is given no NATS credentials and must not need them.
 */
function runMigrate<C extends ServiceConfig>(service: ServiceDefinition<C>): void {
  ensurePasswordFile();
  const { logLevel, databaseUrl, migrationDatabaseUrl } = service.configShape;
  const shape: ConfigShape<Pick<ServiceConfig, 'logLevel' | 'databaseUrl' | 'migrationDatabaseUrl'>> = { logLevel, databaseUrl, migrationDatabaseUrl };
  const config = readConfigOrExit(shape);
  useProcessLogger({ service: service.name, level: config.logLevel });
  const run = async (): Promise<void> => {
    // With an owner's URL, migrate as the owner and give the serving role its grants; without, as before.
    const runtimeRole = config.migrationDatabaseUrl ? roleOf(config.databaseUrl) : undefined;
    const applied = await migrate(service.databaseOptions(config.migrationDatabaseUrl ?? config.databaseUrl), runtimeRole);
    process.stdout.write(`${service.name}: ${applied.length} migration(s) applied${applied.length ? `: ${applied.join(', ')}` : ''}\n`);
    process.exit(0);
  };
  run().catch(exitOnFailure(service.name));
}

function exitOnFailure(name: string): (error: unknown) => void {
  return (error) => {
    processLogger().fatal({ err: error }, `${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  };
}

type KafkaSettings = Pick<ServiceConfig, 'logLevel' | 'kafkaBrokers' | 'kafkaNamespace' | 'kafkaPrincipal'>;

/**
 * `main.js kafka-provision` and `main.js dlt` read the Kafka settings alone, like migrate its
 * database's: they are run as other principals (the administrator, dead-letters) and are given
 * no database or NATS credentials.
 */
function readKafkaConfig<C extends ServiceConfig>(service: ServiceDefinition<C>): KafkaSettings {
  const { logLevel, kafkaBrokers, kafkaNamespace, kafkaPrincipal } = service.configShape;
  const shape: ConfigShape<KafkaSettings> = { logLevel, kafkaBrokers, kafkaNamespace, kafkaPrincipal };
  const config = readConfigOrExit(shape);
  useProcessLogger({ service: service.name, level: config.logLevel });
  return config;
}

/**
 * Creates the namespace's topics and every principal's ACLs (libs/contracts' Kafka access table),
 * then exits. Run once per deployment before the services start, as the administrator
 * (KAFKA_SASL_USERNAME=admin): no service may create topics or ACLs itself.
 */
async function kafkaProvisionCommand(name: string, config: KafkaSettings): Promise<number> {
  const admin = createKafkaClient({ clientId: `${name}.kafka-provision`, brokers: config.kafkaBrokers, logLevel: LogLevel.ERROR }).admin();
  await admin.connect();
  try {
    await provisionKafka(admin, config.kafkaNamespace);
  } finally {
    await admin.disconnect();
  }
  process.stdout.write(`kafka: topics and ACLs of namespace '${config.kafkaNamespace}' provisioned as ${config.kafkaPrincipal ?? 'an anonymous client'}\n`);
  return 0;
}

/** `dlt list|show|replay|purge` on this service's dead-letter topic. */
function deadLetterCommand(name: string, config: KafkaSettings, args: string[]): Promise<number> {
  const kafka = createKafkaClient({ clientId: `${name}.dead-letter-tools`, brokers: config.kafkaBrokers, logLevel: LogLevel.ERROR });
  const tools = {
    kafka,
    topic: namespaced(config.kafkaNamespace, deadLetterTopic(name)),
    toolsGroupId: namespaced(config.kafkaNamespace, `${name}.dead-letter-tools`),
  };
  return runDeadLetterCommand(tools, args, process.stdout, process.stderr);
}

/**
 * The first migrate run of a deployment creates the serving role's password: random, written
 * once to DATABASE_PASSWORD_FILE (readable by this user only), then set on the role by every
 * migrate run, so a recreated database volume gets it back.
 */
function ensurePasswordFile(): void {
  const file = process.env[DATABASE_PASSWORD_FILE]?.trim();
  if (!file || existsSync(file)) return;
  writeFileSync(file, `${randomBytes(24).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
}
