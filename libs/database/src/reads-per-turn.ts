import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader = require('dataloader');
import { executePrepared } from './prepared-statement';

/**
 * The reads a service is asked for in one event-loop turn, sent to PostgreSQL together once the
 * turn's I/O is handled: under load a replica takes about ten requests from one read of its NATS
 * connection, and one statement for all of them costs PostgreSQL and the service one round trip
 * instead of ten (docs/BENCHMARKS-HISTORY.md, "The reads of one turn in one statement").
 *
 * Nothing is kept from one turn to the next (DataLoader's cache is off): every statement leaves
 * after each request it answers has arrived, so each sees every write committed before it was
 * asked, as a statement of its own would. For reads outside a transaction only: the batch runs
 * on a pooled connection, whatever context its callers were in.
 */
const ONE_TURN = {
  cache: false,
  batchScheduleFn: (send: () => void) => setImmediate(send),
  // Bounds one statement's array and result; a busier turn sends several.
  maxBatchSize: 500,
} as const;

/**
 * Rows by id: `sql` selects them with `id = any(?::bigint[])` (its only parameter), and `idColumn`
 * names the column the ids are read back from. A missing row is `undefined`.
 */
export class RowsById<Row extends object> {
  private readonly loader: DataLoader<number, Row | undefined>;

  constructor(em: EntityManager, sql: string, idColumn: keyof Row & string) {
    this.loader = new DataLoader(async (ids) => {
      const rows = await executePrepared<Row>(em, sql, [[...new Set(ids)]]);
      // pg reads a bigint as text.
      const byId = new Map(rows.map((row) => [String(row[idColumn]), row]));
      return ids.map((id) => byId.get(String(id)));
    }, ONE_TURN);
  }

  load(id: number): Promise<Row | undefined> {
    return this.loader.load(id);
  }
}

interface Read {
  sql: string;
  params: readonly unknown[];
}

/**
 * Statements of one turn that are the same text with the same values run once, and their callers
 * share the rows: read them, do not change them. Different reads of a turn still run each on its
 * own, in parallel, and one that fails fails only its own callers.
 */
export class SharedReads {
  private readonly loader: DataLoader<Read, readonly unknown[]>;

  constructor(em: EntityManager) {
    this.loader = new DataLoader(
      (reads) => {
        const running = new Map<string, Promise<readonly unknown[] | Error>>();
        return Promise.all(
          reads.map((read) => {
            const key = keyOf(read);
            let rows = running.get(key);
            if (!rows) {
              rows = executePrepared(em, read.sql, read.params).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
              running.set(key, rows);
            }
            return rows;
          }),
        );
      },
      ONE_TURN,
    );
  }

  /** `executePrepared(em, sql, params)`, shared with the same read of this turn. */
  read<Row>(sql: string, params: readonly unknown[]): Promise<readonly Row[]> {
    return this.loader.load({ sql, params }) as Promise<readonly Row[]>;
  }
}

const keyOf = ({ sql, params }: Read): string => JSON.stringify([sql, params]);
