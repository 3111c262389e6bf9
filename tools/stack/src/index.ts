// The stack tools' public API: what the end-to-end suite, the checks, the bench and the chaos
// suite use to run the stack and its servers (`import { … } from '@petstore/stack'`).
export { ROOT } from './paths';
export { CACHE, writeSecret, ensureCertificates, passwordFile, canConnect, runningPid, waitForPort } from './secrets';
export { installPackage } from './packages';
export { SERVICES, APPS, DEV_API_KEY, stackLayout, type Service, type App, type ProcessEnv, type StackLayout, type StackLayoutOptions } from './layout';
export { E2E_KAFKA, KAFKA_SH, kafka, kafkaAsync, kafkaShEnv, kafkaScriptEnv, ensureKafka, kafkaSecretsDir, kafkaCredentials, kafkaClientAuth, type KafkaBroker } from './kafka';
export { ensurePostgres, ensureNats, ensureRedis } from './machine-services';
export { build, mainOf, runMigrations, provisionKafka, dropDatabases } from './build';
export {
  startProcess,
  stopProcess,
  waitUntilReady,
  startStack,
  type StackProcess,
  type StartProcessOptions,
  type RunningStack,
} from './processes';
export {
  NATS_PORT,
  CLUSTER_NATS_PORT,
  TEST_NATS,
  IDENTITIES,
  natsServer,
  ensureNatsServer,
  stopNatsServer,
  natsClientOptions,
  type NatsServer,
  type NatsClientOptions,
} from './nats';
export { REDIS_PORT, TEST_REDIS_PORT, RATE_LIMIT_USER, RATE_LIMIT_ACL, redisDir, redisServer, ensureRedisServer, stopRedisServer, type RedisServer } from './redis';
export {
  CLUSTER_KAFKA,
  REPLICAS,
  brokersOf,
  clusterKafka,
  clusterKafkaAsync,
  clusterKafkaEnv,
  clusterLayout,
  type ClusterKafka,
  type ClusterLayout,
  type ClusterLayoutOptions,
} from './cluster/cluster-layout';
export { CLIENT_KEEP_ALIVE_S, ensureHaproxy, haproxyConfig, startBalancer, waitForBalancer, type BalancedLayout } from './cluster/haproxy';
export { ensureNatsAndRedis, startCluster, type RunningCluster } from './cluster/start-cluster';
export { npmTools, generatorJar } from './openapi-tools';
export { startOtlpReceiver, spansOf, decodeTraceRequest, type OtlpReceiver, type OtlpReceiverOptions, type ReceivedSpan, type AttributeValue } from './otlp-receiver';
export { ensureDebianTools, chartTools } from './test-tools';
export { terminalOutput } from './terminal-output';
