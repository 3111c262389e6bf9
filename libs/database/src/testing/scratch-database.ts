import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { databaseOptions } from '../database-options';

const SERVER = 'postgres://postgres@127.0.0.1:5432';

/**
 * A database of one suite's own on the local server, for this library's tests and the bench's
 * `transaction-cost`: made, then dropped with whatever still holds it.
 */
export class ScratchDatabase {
  readonly name: string;
  readonly url: string;

  /** `purpose` goes into the name: `petstore_<purpose>_<random>_test`. */
  constructor(purpose: string) {
    this.name = `petstore_${purpose}_${randomBytes(4).toString('hex')}_test`;
    this.url = `${SERVER}/${this.name}`;
  }

  create(): Promise<void> {
    return onServer(`create database "${this.name}"`);
  }

  drop(): Promise<void> {
    return onServer(`drop database if exists "${this.name}" with (force)`);
  }

  /** MikroORM on it with no entities: for executePrepared and what is built on it. */
  openOrm(poolMax: number): Promise<MikroORM> {
    return MikroORM.init({
      ...databaseOptions({ url: this.url, entities: [], migrations: [], poolMax }),
      discovery: { warnWhenNoEntities: false },
    });
  }
}

async function onServer(sql: string): Promise<void> {
  const client = new Client({ connectionString: `${SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
