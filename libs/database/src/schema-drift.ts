import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { prepareTestDatabase } from './migrate';

/**
 * For a service's entities-match-migrations test: recreates the (test) database from the
 * migrations and answers the statements MikroORM would run to make it match the entities, for
 * the entities' own tables only (tables the ORM does not manage are SQL's alone). Empty when the
 * two agree.
 */
export async function entitySchemaDrift(options: Options): Promise<string[]> {
  await prepareTestDatabase(options);
  const orm = await MikroORM.init(options);
  try {
    const tables = Object.values(orm.getMetadata().getAll()).map((meta) => meta.tableName);
    const ofEntities = new RegExp(`"(${tables.join('|')})"|\\b(${tables.join('|')})_`);
    const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false });
    return diff.split('\n').filter((line) => ofEntities.test(line));
  } finally {
    await orm.close(true);
  }
}
