/**
 * Validation of rendered objects without an API server: built-in kinds against the Kubernetes
 * API's own schemas (the kubernetes-models package, generated from the API's OpenAPI document),
 * custom resources against the openAPIV3Schema of their CRD (the copies in ../crds).
 */
import Ajv, { type ValidateFunction } from 'ajv';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import type { K8sObject } from './render';

export const crdDir = path.join(__dirname, '../crds');
export const CRD_FILES = [
  'strimzi/040-Crd-kafka.yaml',
  'strimzi/043-Crd-kafkatopic.yaml',
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
