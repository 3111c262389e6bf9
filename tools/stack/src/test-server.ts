// `node dist/tools/stack/test-server.js nats|redis`: the server the unit and integration suites
// share, started if needed; prints the variables that reach it as one JSON line (paths only, never
// a password). Jest's global setup (libs/testing) runs it before the workers start.
import { ensureNats, ensureRedis } from './machine-services';
import { TEST_NATS, natsServer } from './nats';
import { TEST_REDIS_PORT, redisServer } from './redis';

async function natsTestServer(): Promise<Record<string, string | undefined>> {
  const server = natsServer(TEST_NATS.port, TEST_NATS.subjectPrefix, { harness: true });
  await ensureNats(server);
  return { NATS_SERVERS: server.url, NATS_TLS_CA_FILE: server.caFile, PETSTORE_NATS_DIR: server.dir };
}

async function redisTestServer(): Promise<Record<string, string | undefined>> {
  const server = redisServer(TEST_REDIS_PORT);
  await ensureRedis(server);
  const { RATE_LIMIT_REDIS_URL, RATE_LIMIT_REDIS_PASSWORD_FILE, RATE_LIMIT_REDIS_TLS_CA_FILE } = server.gatewayEnv;
  return { TEST_REDIS_URL: RATE_LIMIT_REDIS_URL, TEST_REDIS_PASSWORD_FILE: RATE_LIMIT_REDIS_PASSWORD_FILE, TEST_REDIS_CA_FILE: RATE_LIMIT_REDIS_TLS_CA_FILE };
}

const servers: Record<string, () => Promise<Record<string, string | undefined>>> = { nats: natsTestServer, redis: redisTestServer };
const which = process.argv[2];
const start = servers[which];
if (!start) {
  process.stderr.write(`usage: node dist/tools/stack/test-server.js ${Object.keys(servers).join('|')}\n`);
  process.exit(2);
}
start().then(
  (variables) => process.stdout.write(`${JSON.stringify(variables)}\n`),
  (error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  },
);
