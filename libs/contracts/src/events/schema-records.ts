import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { breakingChanges, type SchemaRecord } from './compatibility';
import type { AnyEventDefinition } from './define-event';
import { EVENT_DEFINITIONS } from './registry';

/*
 * Every version of every event's schema, as released, is kept in the repository
 * (libs/contracts/schemas/<type>/v<n>.json): what a consumer one version behind was built
 * against. A definition is checked against them (schema-records.spec.ts) and
 * `npx nx run contracts:record-schemas` records a new version or a compatible change.
 */

/** Relative to the repository root. */
export const SCHEMA_RECORDS_DIR = 'libs/contracts/schemas';

/** The record of a definition's current version, or of the previous version it still reads. */
export function recordOf(definition: AnyEventDefinition, version: 'current' | 'previous' = 'current'): SchemaRecord {
  const previous = version === 'previous' ? definition.previous : undefined;
  if (version === 'previous' && !previous) throw new Error(`${definition.type} reads no previous version`);
  return {
    type: definition.type,
    schemaVersion: previous?.schemaVersion ?? definition.schemaVersion,
    topic: definition.topic,
    key: definition.keyPointer,
    payload: previous?.schema ?? definition.payloadSchema,
  };
}

/** Every recorded version, by event type and version. */
export function readSchemaRecords(root: string): Map<string, Map<number, SchemaRecord>> {
  const records = new Map<string, Map<number, SchemaRecord>>();
  const dir = join(root, SCHEMA_RECORDS_DIR);
  if (!existsSync(dir)) return records;
  for (const type of readdirSync(dir)) {
    const versions = new Map<number, SchemaRecord>();
    for (const file of readdirSync(join(dir, type))) {
      const match = /^v(\d+)\.json$/.exec(file);
      if (!match) throw new Error(`${SCHEMA_RECORDS_DIR}/${type}/${file} is not a schema record (v<n>.json)`);
      versions.set(Number(match[1]), JSON.parse(readFileSync(join(dir, type, file), 'utf8')) as SchemaRecord);
    }
    records.set(type, versions);
  }
  return records;
}

/** What is wrong between the definitions and the records: empty when every definition is recorded and compatible. */
export function schemaRecordProblems(
  records: Map<string, Map<number, SchemaRecord>>,
  definitions: readonly AnyEventDefinition[] = EVENT_DEFINITIONS,
): string[] {
  const problems: string[] = [];
  for (const definition of definitions) {
    const versions = records.get(definition.type) ?? new Map<number, SchemaRecord>();
    const current = recordOf(definition);
    const released = versions.get(definition.schemaVersion);
    const record = `${SCHEMA_RECORDS_DIR}/${definition.type}/v${definition.schemaVersion}.json`;
    for (let version = 1; version < definition.schemaVersion; version += 1) {
      if (!versions.has(version)) problems.push(`${definition.type} version ${version} is not recorded`);
    }
    for (const version of versions.keys()) {
      if (version > definition.schemaVersion) {
        problems.push(`${definition.type} version ${version} is recorded but the definition is at ${definition.schemaVersion}`);
      }
    }
    if (!released) {
      problems.push(`${definition.type} version ${definition.schemaVersion} is not recorded: npx nx run contracts:record-schemas`);
    } else {
      const breaking = breakingChanges(released, current);
      if (breaking.length > 0) {
        problems.push(
          `${definition.type} changed incompatibly without raising its schemaVersion (${definition.schemaVersion}): ` +
            `${breaking.join('; ')}. Raise it and read the version before (docs/ARCHITECTURE.md, Evolving an event).`,
        );
      } else if (!isDeepStrictEqual(released, current)) {
        problems.push(`${definition.type} changed compatibly since ${record} was written: npx nx run contracts:record-schemas`);
      }
    }
    const before = versions.get(definition.schemaVersion - 1);
    if (before && !definition.previous) {
      problems.push(
        `${definition.type} no longer reads version ${before.schemaVersion}: consumers must accept the previous version ` +
          'while its producers may still run (set `previous`)',
      );
    }
    if (before && definition.previous) {
      if (!isDeepStrictEqual(before, recordOf(definition, 'previous'))) {
        problems.push(`${definition.type} reads version ${before.schemaVersion} with another schema than the one recorded`);
      }
      const unreadable = breakingChanges(before, current).filter((problem) =>
        problem.startsWith(`a consumer of version ${definition.schemaVersion} reading`),
      );
      if (unreadable.length > 0 && !definition.previous.upgrade) {
        problems.push(`${definition.type} version ${before.schemaVersion} needs an upgrade to be read as version ${definition.schemaVersion}: ${unreadable.join('; ')}`);
      }
      if (breakingChanges(before, current).some((problem) => problem.startsWith('the key') || problem.startsWith('the topic'))) {
        problems.push(`${definition.type} changed its key or topic: that needs a new topic, not a new version`);
      }
    }
  }
  return problems;
}

/**
 * `npx nx run contracts:record-schemas`: records each definition's current version (and the
 * previous one it reads, when missing). Refuses to overwrite a release with an incompatible
 * schema: that needs a new schemaVersion.
 */
export function writeSchemaRecords(root: string, definitions: readonly AnyEventDefinition[] = EVENT_DEFINITIONS): string[] {
  const records = readSchemaRecords(root);
  const written: string[] = [];
  for (const definition of definitions) {
    const wanted = [recordOf(definition), ...(definition.previous ? [recordOf(definition, 'previous')] : [])];
    for (const record of wanted) {
      const existing = records.get(record.type)?.get(record.schemaVersion);
      if (existing && isDeepStrictEqual(existing, record)) continue;
      if (existing && record.schemaVersion !== definition.schemaVersion) continue; // a released earlier version stays as it was
      const breaking = existing ? breakingChanges(existing, record) : [];
      if (breaking.length > 0) {
        throw new Error(`${record.type} version ${record.schemaVersion} is released; raise schemaVersion: ${breaking.join('; ')}`);
      }
      const file = join(root, SCHEMA_RECORDS_DIR, record.type, `v${record.schemaVersion}.json`);
      mkdirSync(join(root, SCHEMA_RECORDS_DIR, record.type), { recursive: true });
      writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
      written.push(file);
    }
  }
  return written;
}
