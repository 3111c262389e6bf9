import type { PayloadPointer } from './define-event';

/*
 * Whether two versions of an event can run side by side in a rolling deploy: a consumer of
 * one version must read what a producer of the other writes. Producers write strictly (their
 * schema, no unknown field); consumers read tolerantly (unknown fields are dropped). So
 * "reader accepts writer" means: every payload the writer's schema allows, less the fields
 * the reader does not know, is one the reader's schema allows.
 *
 * Written for the JSON Schema the contracts use (object, properties, required, type, enum,
 * const, bounds, format, pattern); a keyword it does not know is reported, never ignored.
 * General schema-diff libraries know neither the tolerant reader nor the Kafka key.
 */

/** One version of an event as the repository records it (libs/contracts/schemas/<type>/v<n>.json). */
export interface SchemaRecord {
  type: string;
  schemaVersion: number;
  topic: string;
  /** The payload field the Kafka key is made of. */
  key: PayloadPointer;
  payload: object;
}

interface Node {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  pattern?: string;
  properties?: Record<string, Node>;
  required?: string[];
  additionalProperties?: boolean;
  description?: string;
  title?: string;
}

const KNOWN = new Set([
  'type',
  'enum',
  'const',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'format',
  'pattern',
  'properties',
  'required',
  'additionalProperties',
  'description',
  'title',
]);

/**
 * What would break if `older` and `newer` ran side by side: a consumer of `older` reading what
 * a producer of `newer` writes, and a consumer of `newer` reading what a producer of `older`
 * wrote (the backlog, a replica not yet replaced). Empty when they are compatible.
 */
export function breakingChanges(older: SchemaRecord, newer: SchemaRecord): string[] {
  const problems: string[] = [];
  if (older.topic !== newer.topic) problems.push(`the topic changed from ${older.topic} to ${newer.topic}`);
  if (older.key !== newer.key) {
    problems.push(`the key changed from ${older.key} to ${newer.key}: one pet's events would no longer share a partition`);
  }
  const sameVersion = older.schemaVersion === newer.schemaVersion;
  const [oldReadsNew, newReadsOld] = sameVersion
    ? [`a consumer of the released version ${older.schemaVersion} reading it as changed`, `a consumer of the change reading the released version ${older.schemaVersion}`]
    : [`a consumer of version ${older.schemaVersion} reading version ${newer.schemaVersion}`, `a consumer of version ${newer.schemaVersion} reading version ${older.schemaVersion}`];
  problems.push(
    ...readerProblems(older.payload as Node, newer.payload as Node, '').map((problem) => `${oldReadsNew}: ${problem}`),
    ...readerProblems(newer.payload as Node, older.payload as Node, '').map((problem) => `${newReadsOld}: ${problem}`),
  );
  return problems;
}

/** Why `reader` would refuse something `writer` allows (none when it never would). */
function readerProblems(reader: Node, writer: Node, path: string): string[] {
  const at = path || '/';
  const unknown = [...Object.keys(reader), ...Object.keys(writer)].filter((keyword) => !KNOWN.has(keyword));
  if (unknown.length > 0) return [`${at} uses ${[...new Set(unknown)].join(', ')}, which this check cannot compare`];

  const problems: string[] = [];
  const readerTypes = typesOf(reader);
  const writerTypes = typesOf(writer);
  if (readerTypes && (!writerTypes || writerTypes.some((type) => !acceptsType(readerTypes, type)))) {
    problems.push(`${at} is ${(writerTypes ?? ['anything']).join(' or ')} but read as ${readerTypes.join(' or ')}`);
  }
  const readerValues = valuesOf(reader);
  if (readerValues) {
    const writerValues = valuesOf(writer);
    const refused = writerValues ? writerValues.filter((value) => !readerValues.some((known) => same(known, value))) : undefined;
    if (!writerValues) problems.push(`${at} is read only as ${readerValues.map(show).join(', ')}`);
    else if (refused && refused.length > 0) problems.push(`${at} may be ${refused.map(show).join(', ')}, which the reader refuses`);
  }
  for (const [bound, wider] of [
    ['minimum', (r: number, w: number) => w < r],
    ['maximum', (r: number, w: number) => w > r],
    ['minLength', (r: number, w: number) => w < r],
    ['maxLength', (r: number, w: number) => w > r],
  ] as const) {
    const limit = reader[bound];
    if (limit === undefined) continue;
    const written = writer[bound];
    if (written === undefined || wider(limit, written)) {
      problems.push(`${at} has ${bound} ${written ?? 'none'} but is read with ${bound} ${limit}`);
    }
  }
  for (const keyword of ['format', 'pattern'] as const) {
    if (reader[keyword] !== undefined && reader[keyword] !== writer[keyword]) {
      problems.push(`${at} has ${keyword} ${show(writer[keyword] ?? 'none')} but is read with ${keyword} ${show(reader[keyword])}`);
    }
  }
  const writerRequired = new Set(writer.required ?? []);
  for (const field of reader.required ?? []) {
    if (!writer.properties?.[field]) problems.push(`${path}/${field} is required but not written (a field removed, renamed or added as required)`);
    else if (!writerRequired.has(field)) problems.push(`${path}/${field} is required but written only sometimes`);
  }
  for (const [field, written] of Object.entries(writer.properties ?? {})) {
    const read = reader.properties?.[field];
    // A field the reader does not know is dropped by the tolerant reader.
    if (read) problems.push(...readerProblems(read, written, `${path}/${field}`));
  }
  return problems;
}

function typesOf(node: Node): string[] | undefined {
  if (node.type === undefined) return undefined;
  return Array.isArray(node.type) ? node.type : [node.type];
}

function acceptsType(readerTypes: string[], type: string): boolean {
  return readerTypes.includes(type) || (type === 'integer' && readerTypes.includes('number'));
}

function valuesOf(node: Node): unknown[] | undefined {
  if (node.const !== undefined) return [node.const];
  return node.enum;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function show(value: unknown): string {
  return JSON.stringify(value);
}
