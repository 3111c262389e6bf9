import { backoffDelay, sleep, type Backoff } from '@petstore/backoff';
import { Client } from 'pg';
import { pgClientSettings } from './database-options';

export interface ListeningSessionOptions {
  /** The database's URL (`orm.config.getClientUrl()`). */
  url: string;
  /** Shown in pg_stat_activity. */
  applicationName: string;
  /** The channel LISTENed to. */
  channel: string;
  /**
   * A session-level advisory lock key (an SQL expression) taken before listening: while another
   * session holds it this one waits, and takes over when that session stops or dies.
   */
  lock?: string;
  /**
   * While another session holds the lock, how often to try it again (default 500 ms). A holder
   * that stops tells the waiting sessions at once; this bounds the takeover after one that died.
   */
  lockRetryMs?: number;
  /** Every notification on the channel, from any session (its own included). */
  onNotification: (payload: string | undefined) => void;
  /** The session holds its lock and listens; a throw ends it and starts a new one. */
  onListening?: (client: Client) => void | Promise<void>;
  /** The session ended, or failed before it listened: whatever was begun on it is over. */
  onEnded?: () => void;
  /** Why the session ended, while it is not being stopped. */
  onError: (error: Error) => void;
  backoff?: Backoff;
}

const defaultBackoff: Backoff = { initialMs: 200, maxMs: 5000 };

/** Where a session that gives its lock up says so, to the sessions waiting for it. */
const releasedChannel = (channel: string) => `${channel}_lock_released`;

/**
 * One connection of its own (not from the pool: a LISTEN and a session lock belong to one
 * connection) that listens on a channel, optionally after taking a session lock, and that
 * connects again with backoff whenever it breaks, until stopped.
 */
export class ListeningSession {
  private current?: Client;
  private listeningOn?: Client;
  private running?: Promise<void>;
  private stopped = false;
  /** Ends the current wait between two tries of the lock. */
  private wakeLockWait?: () => void;

  constructor(private readonly options: ListeningSessionOptions) {}

  /** The connection while it holds its lock and listens; statements that need the lock run on it. */
  get client(): Client | undefined {
    return this.listeningOn;
  }

  start(): void {
    this.stopped = false;
    this.running ??= this.run();
  }

  /** Ends the session (handing its lock to a waiting session at once) and waits for its loop to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    const { lock, channel } = this.options;
    if (lock && this.listeningOn) {
      // The unlock takes effect at once, the notification at the statement's commit: after it.
      await this.listeningOn
        .query(`select pg_advisory_unlock(${lock}), pg_notify('${releasedChannel(channel)}', '')`)
        .catch(() => undefined); // the session's end frees the lock all the same
    }
    this.wakeLockWait?.();
    await this.current?.end().catch(() => undefined);
    await this.running;
    this.running = undefined;
  }

  private async run(): Promise<void> {
    const { url, applicationName, channel, lock, backoff = defaultBackoff } = this.options;
    for (let attempt = 1; !this.stopped; attempt++) {
      const client = new Client({ ...pgClientSettings(url), application_name: applicationName });
      const ended = new Promise<void>((resolve) => {
        client.once('end', resolve);
        client.on('error', () => resolve());
      });
      client.on('notification', (message) => {
        if (message.channel === channel) this.options.onNotification(message.payload);
        else this.wakeLockWait?.();
      });
      this.current = client;
      try {
        await client.connect();
        if (lock) await this.takeLock(client, lock, ended);
        if (this.stopped) break;
        await client.query(`listen ${channel}`);
        this.listeningOn = client;
        await this.options.onListening?.(client);
        attempt = 0;
        await ended;
      } catch (error) {
        if (!this.stopped) this.options.onError(error instanceof Error ? error : new Error(String(error)));
      } finally {
        this.listeningOn = undefined;
        this.options.onEnded?.();
        await client.end().catch(() => undefined);
      }
      if (!this.stopped) await sleep(backoffDelay(attempt, backoff));
    }
  }

  /**
   * Takes the lock once no other session holds it, unless the session is stopped first. It tries
   * and waits rather than blocking in `pg_advisory_lock`: a statement waiting for a lock holds its
   * snapshot, which keeps every dead row of the database from being cleaned up for as long as it
   * waits, here as long as another replica leads.
   */
  private async takeLock(client: Client, lock: string, ended: Promise<void>): Promise<void> {
    const { channel, lockRetryMs = 500 } = this.options;
    let isEnded = false;
    void ended.then(() => {
      isEnded = true;
      this.wakeLockWait?.();
    });
    await client.query(`listen ${releasedChannel(channel)}`);
    for (;;) {
      if (isEnded) throw new Error('The connection ended while waiting for the lock');
      if (this.stopped) return;
      const { rows } = await client.query<{ taken: boolean }>(`select pg_try_advisory_lock(${lock}) as taken`);
      if (rows[0].taken) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, lockRetryMs);
        this.wakeLockWait = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeLockWait = undefined;
    }
    await client.query(`unlisten ${releasedChannel(channel)}`);
  }
}
