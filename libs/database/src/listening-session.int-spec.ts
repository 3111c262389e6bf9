import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ListeningSession } from './listening-session';

const admin = 'postgres://postgres@127.0.0.1:5432';

describe('ListeningSession against PostgreSQL', () => {
  const database = `petstore_listening_${randomBytes(4).toString('hex')}_test`;
  const url = `${admin}/${database}`;
  const channel = `listening_${randomBytes(4).toString('hex')}`;
  const lock = `hashtext('${channel}')`;
  const sessions: ListeningSession[] = [];
  let notifier: Client;

  const adminQuery = async (sql: string) => {
    const client = new Client({ connectionString: `${admin}/postgres` });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  /** A session that records what it hears and when it listens. */
  const session = (name: string, withLock = false) => {
    const heard: (string | undefined)[] = [];
    const events: string[] = [];
    const listening = new ListeningSession({
      url,
      applicationName: name,
      channel,
      lock: withLock ? lock : undefined,
      backoff: { initialMs: 20, maxMs: 100 },
      onNotification: (payload) => heard.push(payload),
      onListening: () => void events.push('listening'),
      onEnded: () => void events.push('ended'),
      onError: () => undefined,
    });
    sessions.push(listening);
    return { listening, heard, events };
  };

  const until = async (condition: () => boolean) => {
    for (let waited = 0; !condition(); waited += 20) {
      if (waited > 10_000) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeAll(async () => {
    await adminQuery(`create database "${database}"`);
    notifier = new Client({ connectionString: url });
    await notifier.connect();
  }, 30_000);

  afterAll(async () => {
    for (const listening of sessions) await listening.stop();
    await notifier?.end();
    await adminQuery(`drop database if exists "${database}" with (force)`);
  }, 30_000);

  it('hears notifications on its channel, and again after its connection was killed', async () => {
    const { listening, heard, events } = session('listening test');
    listening.start();
    await until(() => listening.client !== undefined);
    await notifier.query(`select pg_notify('${channel}', 'first')`);
    await until(() => heard.includes('first'));

    await notifier.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'listening test'`);
    await until(() => events.filter((event) => event === 'listening').length === 2);
    await notifier.query(`select pg_notify('${channel}', 'second')`);
    await until(() => heard.includes('second'));

    await listening.stop();
    expect(listening.client).toBeUndefined();
    expect(events).toEqual(['listening', 'ended', 'listening', 'ended']);
  });

  it('with a lock, one session listens at a time and the other takes over when it stops', async () => {
    const first = session('lock test one', true);
    const second = session('lock test two', true);
    first.listening.start();
    await until(() => first.listening.client !== undefined);
    second.listening.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second.events).toEqual([]);

    await first.listening.stop();
    await until(() => second.listening.client !== undefined);
    expect(second.events).toEqual(['listening']);
    await second.listening.stop();
  });
});
