/**
 * Renders deploy/helm/petstore with the pinned helm (installed on first use into
 * ~/.cache/petstore by @petstore/stack's chartTools) and parses what it prints.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { chartTools } from '@petstore/stack';
import { parseAllDocuments } from 'yaml';

export const root = path.join(__dirname, '../../..');
export const chartDir = path.join(root, 'deploy/helm/petstore');
export const RELEASE = 'shop';
export const NAMESPACE = 'store';

/** The value sets every check runs on: the chart's defaults and its examples/. */
export const valueSets = {
  defaults: [],
  minimal: ['examples/minimal.yaml'],
  production: ['examples/production.yaml'],
  strimzi: ['examples/strimzi.yaml'],
  'external-kafka': ['examples/external-kafka.yaml'],
} satisfies Record<string, string[]>;
export type ValueSet = keyof typeof valueSets;
export const valueSetNames = Object.keys(valueSets) as ValueSet[];

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  data?: Record<string, string>;
}

let helmPath: string | undefined;
export function helm(...args: string[]): { status: number; stdout: string; stderr: string } {
  helmPath ??= chartTools().helm;
  const result = spawnSync(helmPath, args, { cwd: chartDir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

function valueArgs(files: string[], set: string[]): string[] {
  return [...files.flatMap((file) => ['-f', file]), ...set.flatMap((value) => ['--set', value])];
}

/** `helm template` of a value set (plus `--set` overrides); throws with helm's message when it refuses. */
export function render(valueSet: ValueSet, ...set: string[]): K8sObject[] {
  const result = helm('template', RELEASE, '.', '--namespace', NAMESPACE, ...valueArgs(valueSets[valueSet], set));
  if (result.status !== 0) throw new Error(`helm template (${valueSet} ${set.join(' ')}) failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`helm template printed invalid YAML: ${document.errors[0].message}`);
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}

/** helm's error output for values it must refuse, or undefined when it renders them. */
export function renderError(valueSet: ValueSet, ...set: string[]): string | undefined {
  const result = helm('template', RELEASE, '.', '--namespace', NAMESPACE, ...valueArgs(valueSets[valueSet], set));
  return result.status === 0 ? undefined : result.stderr;
}

export function lint(valueSet: ValueSet): { status: number; output: string } {
  const result = helm('lint', '--strict', '.', ...valueArgs(valueSets[valueSet], []));
  return { status: result.status, output: result.stdout + result.stderr };
}

export function ofKind<T extends K8sObject = K8sObject>(objects: K8sObject[], kind: string): T[] {
  return objects.filter((object) => object.kind === kind) as T[];
}
