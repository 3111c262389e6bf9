import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ListeningSession } from './listening-session';
import { ScratchDatabase } from './testing/scratch-database';

describe('ListeningSession against PostgreSQL', () => {
  const database = new ScratchDatabase('listening');
  const { url } = database;
  const channel = `listening_${randomBytes(4).toString('hex')}`;
  const lock = `hashtext('${channel}')`;
  const sessions: ListeningSession[] = [];
  let notifier: Client;

  /** A session that records what it hears and when it listens. */
  const session = (name: string, withLock = false, lockRetryMs?: number) => {
    const heard: (string | undefined)[] = [];
    const events: string[] = [];
    const listening = new ListeningSession({
      url,
      applicationName: name,
      channel,
      lock: withLock ? lock : undefined,
      lockRetryMs,
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
    await database.create();
    notifier = new Client({ connectionString: url });
    await notifier.connect();
  }, 30_000);

  afterAll(async () => {
    for (const listening of sessions) await listening.stop();
    await notifier?.end();
    await database.drop();
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

  /** What pg_stat_activity shows of the sessions named `name`. */
  const activity = async (name: string) =>
    (await notifier.query<{ backend_xmin: string | null }>('select backend_xmin from pg_stat_activity where application_name = $1', [name])).rows;

  it('with a lock, one session listens at a time and the other takes over when it stops', async () => {
    // Tried again only after a minute: the takeover comes from the stopping session's word.
    const first = session('lock test one', true, 60_000);
    const second = session('lock test two', true, 60_000);
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

  it('waits for the lock without holding a snapshot, so the database\'s dead rows can be cleaned up meanwhile', async () => {
    const holder = session('snapshot test one', true);
    const waiter = session('snapshot test two', true, 20);
    holder.listening.start();
    await until(() => holder.listening.client !== undefined);
    waiter.listening.start();
    await new Promise((resolve) => setTimeout(resolve, 300)); // connected, and trying every 20 ms
    const samples: (string | null)[] = [];
    for (let i = 0; i < 10; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const rows = await activity('snapshot test two');
      expect(rows).toHaveLength(1);
      samples.push(rows[0].backend_xmin);
    }
    // A wait inside pg_advisory_lock shows the horizon it holds back here in every sample. Each
    // try holds one for the instant of its statement, which a sample on a busy machine can catch.
    expect(samples.filter((xmin) => xmin === null).length).toBeGreaterThanOrEqual(8);
    expect(waiter.events).toEqual([]);
    await holder.listening.stop();
    await waiter.listening.stop();
  });

  it('takes the lock over from a holder whose connection died', async () => {
    const crashed = new Client({ connectionString: url, application_name: 'lock holder that dies' });
    await crashed.connect();
    crashed.on('error', () => undefined);
    await crashed.query(`select pg_advisory_lock(${lock})`);
    const waiter = session('takeover test', true, 50);
    waiter.listening.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(waiter.events).toEqual([]);

    await notifier.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'lock holder that dies'`);
    await until(() => waiter.listening.client !== undefined);
    expect(waiter.events).toEqual(['listening']);
    await waiter.listening.stop();
    await crashed.end().catch(() => undefined);
  });
});
