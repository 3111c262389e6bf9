// What the databases say after the load: the stock against the approved orders, the size of the
// messaging tables, and the versions of the machine's software.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as pg from 'pg';
import { ROOT, SERVICES } from '@petstore/stack';
import type { Layout } from './bench-kafka';
import { round, sleep } from './figures';
import { ADMIN_DATABASE_URL, STOCK_PER_PET } from './knobs';
import type { apiClient } from './target';

/** Every approved order took its units exactly once: stock + approved units = what was stocked. */
export async function checkStock(call: ReturnType<typeof apiClient>, ordersDb: pg.Pool, pets: { id: number }[]) {
  const deadline = Date.now() + 60_000;
  while ((await ordersDb.query("select 1 from store_order where status = 'placed' limit 1")).rows.length > 0) {
    if (Date.now() > deadline) throw new Error('orders were still undecided a minute after the load ended');
    await sleep(200);
  }
  const { rows } = await ordersDb.query<{ pet_id: string; units: number }>(
    `select pet_id, sum(quantity)::int as units from store_order where status = 'approved' and pet_id = any($1) group by pet_id`,
    [pets.map((pet) => pet.id)],
  );
  const approved = new Map(rows.map((row) => [Number(row.pet_id), row.units]));
  let stock = 0;
  let mismatches = 0;
  for (const pet of pets) {
    const item = (await call('GET', `/v1/store/inventory/${pet.id}`)) as { quantity: number };
    if (item.quantity + (approved.get(pet.id) ?? 0) !== STOCK_PER_PET) mismatches += 1;
    stock += item.quantity;
  }
  const approvedUnits = [...approved.values()].reduce((sum, units) => sum + units, 0);
  return { pets: pets.length, stocked: pets.length * STOCK_PER_PET, approvedUnits, remaining: stock, mismatches, exact: mismatches === 0 };
}

/** Rows and size of the messaging tables of every service database. */
export async function messagingTables(layout: Layout): Promise<Record<string, { rows: number; kib: number | null }>> {
  const sizes: Record<string, { rows: number; kib: number | null }> = {};
  for (const name of SERVICES) {
    const client = new pg.Client({ connectionString: layout.envs[name].DATABASE_URL });
    await client.connect();
    try {
      for (const table of ['outbox_event', 'processed_event', 'consumer_position']) {
        const { rows } = await client.query(`select count(*)::int as rows, pg_total_relation_size('${table}')::bigint as bytes from ${table}`);
        sizes[`${name}.${table}`] = { rows: rows[0].rows, kib: round(Number(rows[0].bytes) / 1024) };
      }
    } finally {
      await client.end();
    }
  }
  return sizes;
}

export async function environment() {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  const { rows } = await client.query<{ server_version: string }>('show server_version');
  await client.end();
  const pkg = (name: string) => (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  return {
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`,
    memoryGiB: round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: rows[0].server_version,
    kafka: '3.9.2',
    nestjs: pkg('@nestjs/core'),
    mikroOrm: pkg('@mikro-orm/core'),
    kafkajs: pkg('kafkajs'),
  };
}
