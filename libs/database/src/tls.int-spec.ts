import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migration } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { databaseOptions } from './database-options';
import { ListeningSession } from './listening-session';
import { migrate } from './migrate';

/*
 * A PostgreSQL server of the test's own that speaks TLS only, with a certificate for 127.0.0.2
 * signed by a CA of the test's own: the machine's shared server is left as it is. Debian's server
 * binaries refuse to run as root, so they run as the `postgres` user.
 */
const PG_BIN = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
const asPostgres = (command: string, ...args: string[]) =>
  execFileSync('runuser', ['-u', 'postgres', '--', join(PG_BIN, command), ...args], { stdio: 'pipe' });
const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });

function makeCa(dir: string, name: string): { key: string; cert: string } {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${name}`, '-keyout', key, '-out', cert);
  return { key, cert };
}

class Migration20260101000000_note extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table "note" ("id" bigserial primary key, "text" text not null);');
  }
}

describe('PostgreSQL over TLS with sslmode=verify-full', () => {
  let dir: string;
  let port: number;
  let caFile: string;
  let foreignCaFile: string;
  const url = (host: string, database: string, params: string) => `postgres://postgres@${host}:${port}/${database}?${params}`;
  const verified = (database: string, host = '127.0.0.2') => url(host, database, `sslmode=verify-full&sslrootcert=${caFile}`);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'petstore-pg-tls-'));
    const ca = makeCa(dir, 'petstore-test-ca');
    caFile = ca.cert;
    foreignCaFile = makeCa(dir, 'someone-else').cert;
    const serverKey = join(dir, 'server.key');
    const serverCsr = join(dir, 'server.csr');
    const serverCert = join(dir, 'server.crt');
    const extensions = join(dir, 'server.ext');
    writeFileSync(extensions, 'subjectAltName = IP:127.0.0.2\n');
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.2', '-keyout', serverKey, '-out', serverCsr);
    openssl('x509', '-req', '-in', serverCsr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '1', '-extfile', extensions, '-out', serverCert);
    execFileSync('chown', ['-R', 'postgres:postgres', dir]);
    execFileSync('chmod', ['600', serverKey]);
    const data = join(dir, 'data');
    asPostgres('initdb', '-D', data, '-U', 'postgres', '--auth=trust', '--no-sync');
    // TLS or nothing: a connection without it finds no pg_hba entry.
    writeFileSync(join(data, 'pg_hba.conf'), 'hostssl all all 127.0.0.0/8 trust\n');
    execFileSync('chown', ['postgres:postgres', join(data, 'pg_hba.conf')]);
    // libs/testing's freePort would make this library depend on the one that depends on it.
    const probe = createServer().listen(0, '127.0.0.1');
    return once(probe, 'listening').then(() => {
      port = (probe.address() as { port: number }).port;
      probe.close();
      asPostgres(
        'pg_ctl', '-D', data, '-w', '-l', join(dir, 'server.log'), 'start', '-o',
        `-p ${port} -c listen_addresses=127.0.0.1,127.0.0.2 -c unix_socket_directories=${dir} -c ssl=on -c ssl_cert_file=${serverCert} -c ssl_key_file=${serverKey} -c fsync=off`,
      );
    });
  }, 60_000);

  afterAll(() => {
    if (!dir) return;
    try {
      asPostgres('pg_ctl', '-D', join(dir, 'data'), '-m', 'immediate', 'stop');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('migrates and serves through the service configuration, encrypted, on every connection it opens', async () => {
    const options = databaseOptions({
      url: verified('petstore_tls_test'),
      entities: [],
      migrations: [{ name: 'Migration20260101000000_note', class: Migration20260101000000_note }],
    });
    // migrate creates the missing database (through the server's management database) and applies.
    expect(await migrate({ ...options, discovery: { warnWhenNoEntities: false } })).toEqual(['Migration20260101000000_note']);

    const orm = await MikroORM.init({ ...options, discovery: { warnWhenNoEntities: false } });
    try {
      const connection = orm.em.fork().getConnection();
      await connection.execute(`insert into note (text) values ('sealed')`);
      const [row] = await connection.execute<{ ssl: boolean; text: string }[]>(
        'select s.ssl, n.text from pg_stat_ssl s, note n where s.pid = pg_backend_pid()',
      );
      expect(row).toEqual({ ssl: true, text: 'sealed' });

      // The sessions pg opens from the URL alone (the outbox relay's, orders' LISTEN) use TLS too.
      const notified: (string | undefined)[] = [];
      let sessionSsl: boolean | undefined;
      const session = new ListeningSession({
        url: orm.config.getClientUrl(),
        applicationName: 'tls-test',
        channel: 'tls_test',
        onNotification: (payload) => notified.push(payload),
        onListening: async (client) => {
          sessionSsl = (await client.query('select ssl from pg_stat_ssl where pid = pg_backend_pid()')).rows[0].ssl;
          await client.query(`select pg_notify('tls_test', 'heard')`);
        },
        onError: () => undefined,
      });
      session.start();
      for (let waited = 0; notified.length === 0 && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      await session.stop();
      expect({ sessionSsl, notified }).toEqual({ sessionSsl: true, notified: ['heard'] });
    } finally {
      await orm.close(true);
    }
  });

  it.each([
    ['a server whose certificate another CA signed', () => url('127.0.0.2', 'postgres', `sslmode=verify-full&sslrootcert=${foreignCaFile}`), /self[- ]signed|unable to (get|verify)/i],
    ['a server whose certificate names another address', () => verified('postgres', '127.0.0.1'), /IP: 127\.0\.0\.1 is not in the cert's list/],
    ['a connection without TLS (the server refuses it)', () => url('127.0.0.2', 'postgres', 'sslmode=disable'), /no pg_hba\.conf entry.*no encryption/],
  ])('refuses %s', async (_case, urlOf, reason) => {
    const options = databaseOptions({ url: urlOf(), entities: [], migrations: [] });
    // init does not connect eagerly; the first statement does.
    const orm = await MikroORM.init({ ...options, discovery: { warnWhenNoEntities: false } });
    try {
      await expect(orm.em.getConnection().execute('select 1')).rejects.toThrow(reason);
    } finally {
      await orm.close(true);
    }
  });
});
