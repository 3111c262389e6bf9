/**
 * Validation of rendered objects without an API server: built-in kinds against the Kubernetes
 * API's own schemas (the kubernetes-models package, generated from the API's OpenAPI document),
 * custom resources against the openAPIV3Schema of their CRD (the copies in ../crds).
 */
import Ajv, { type ValidateFunction } from 'ajv';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { parse } from 'yaml';
import { root, type K8sObject } from './render';

export const crdDir = path.join(__dirname, '../crds');
export const CRD_FILES = [
  'strimzi/040-Crd-kafka.yaml',
  'strimzi/043-Crd-kafkatopic.yaml',
  'strimzi/044-Crd-kafkauser.yaml',
  'strimzi/045-Crd-kafkanodepool.yaml',
  'prometheus-operator/monitoring.coreos.com_servicemonitors.yaml',
  'prometheus-operator/monitoring.coreos.com_prometheusrules.yaml',
];

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: boolean | Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  [keyword: string]: unknown;
}

/**
 * The API server drops (or, with strict field validation, refuses) fields a structural schema
 * does not name; additionalProperties: false makes ajv refuse them too, so a misspelt field fails.
 */
function strict(schema: Schema): Schema {
  const copy: Schema = { ...schema };
  if (copy.properties) {
    copy.properties = Object.fromEntries(Object.entries(copy.properties).map(([key, value]) => [key, strict(value)]));
    if (copy.additionalProperties === undefined && !copy['x-kubernetes-preserve-unknown-fields']) copy.additionalProperties = false;
  }
  if (copy.items) copy.items = strict(copy.items);
  if (copy.additionalProperties && typeof copy.additionalProperties === 'object') copy.additionalProperties = strict(copy.additionalProperties);
  return copy;
}

/** `group/version Kind` → its compiled CRD schema. */
function loadCrdValidators(): Map<string, ValidateFunction> {
  // strict: false lets the x-kubernetes-* keywords through; formats (int32, date-time) are informative only.
  // CRD patterns are Go regular expressions: (?i) is Go's case-insensitive flag, a flag in JavaScript.
  const regExp = (pattern: string, flags: string) =>
    pattern.includes('(?i)') ? new RegExp(pattern.replaceAll('(?i)', ''), `${flags}i`) : new RegExp(pattern, flags);
  regExp.code = 'new RegExp';
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, code: { regExp } });
  const validators = new Map<string, ValidateFunction>();
  for (const file of CRD_FILES) {
    const crd = parse(fs.readFileSync(path.join(crdDir, file), 'utf8'));
    for (const version of crd.spec.versions) {
      const key = `${crd.spec.group}/${version.name} ${crd.spec.names.kind}`;
      validators.set(key, ajv.compile(strict(version.schema.openAPIV3Schema)));
    }
  }
  return validators;
}

let crdValidators: Map<string, ValidateFunction> | undefined;

/** The problems of one rendered object, empty when the API server would accept it. */
export function validate(object: K8sObject): string[] {
  const where = `${object.kind} ${object.metadata?.name}`;
  crdValidators ??= loadCrdValidators();
  const crd = crdValidators.get(`${object.apiVersion} ${object.kind}`);
  if (crd) {
    return crd(object) ? [] : (crd.errors ?? []).map((error) => `${where}: ${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`);
  }
  let model: (new (data: unknown) => { validate(): void }) | undefined;
  try {
    model = require(`kubernetes-models/${object.apiVersion}`)[object.kind];
  } catch {
    model = undefined;
  }
  if (!model) return [`${where}: no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new model(object).validate();
    return [];
  } catch (error) {
    return [`${where}: ${(error as Error).message}`];
  }
}

/**
 * Fields the API does not define. The API server drops them (or refuses them under strict field
 * validation), so a misspelt field would silently do nothing. kubernetes-models' validators allow
 * unknown fields, but its typings list every field: each object becomes an object literal of its
 * kind's interface, and the TypeScript compiler's excess-property check names any field too many.
 */
export function unknownFields(objects: K8sObject[]): string[] {
  crdValidators ??= loadCrdValidators();
  const builtIn = objects.filter((object) => !crdValidators?.has(`${object.apiVersion} ${object.kind}`));
  const dir = path.join(root, 'tmp/chart-check');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `rendered-${process.pid}-${Date.now()}.ts`);
  // Line i + 1 holds object i, so a diagnostic's line names the object.
  const source = [
    '// Rendered objects, typed by their kind (tools/chart-check).',
    ...builtIn.map((object, index) => `export const o${index}: import('kubernetes-models/${object.apiVersion}/${object.kind}').I${object.kind} = ${JSON.stringify(object)};`),
  ].join('\n');
  fs.writeFileSync(file, source);
  try {
    const program = ts.createProgram([file], { strict: true, noEmit: true, skipLibCheck: true, types: [], module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, target: ts.ScriptTarget.ES2022 });
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const line = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line : 0;
      const object = builtIn[line - 1];
      const where = object ? `${object.kind} ${object.metadata?.name}` : 'rendered objects';
      return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
    });
  } finally {
    fs.rmSync(file, { force: true });
  }
}
