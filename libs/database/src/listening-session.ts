import { backoffDelay, sleep, type Backoff } from '@petstore/backoff';
import { Client } from 'pg';

export interface ListeningSessionOptions {
  /** The database's URL (`orm.config.getClientUrl()`). */
  url: string;
  /** Shown in pg_stat_activity. */
  applicationName: string;
  /** The channel LISTENed to. */
  channel: string;
  /**
   * A session-level advisory lock key (an SQL expression) taken before listening: while another
   * session holds it this one waits, and takes over the moment that session ends.
   */
  lock?: string;
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

  constructor(private readonly options: ListeningSessionOptions) {}

  /** The connection while it holds its lock and listens; statements that need the lock run on it. */
  get client(): Client | undefined {
    return this.listeningOn;
  }

  start(): void {
    this.stopped = false;
    this.running ??= this.run();
  }

  /** Ends the session and waits for its loop to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.current?.end().catch(() => undefined);
    await this.running;
    this.running = undefined;
  }

  private async run(): Promise<void> {
    const { url, applicationName, channel, lock, backoff = defaultBackoff } = this.options;
    for (let attempt = 1; !this.stopped; attempt++) {
      const client = new Client({ connectionString: url, application_name: applicationName });
      const ended = new Promise<void>((resolve) => {
        client.once('end', resolve);
        client.on('error', () => resolve());
      });
      client.on('notification', (message) => this.options.onNotification(message.payload));
      this.current = client;
      try {
        await client.connect();
        if (lock) await client.query(`select pg_advisory_lock(${lock})`); // waits while another session holds it
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
}
