// The tools that judge the gateway's OpenAPI document from outside: Redocly and Spectral
// (lint), Prism (a validating proxy) from the npm registry, openapi-generator from Maven
// Central. They are not dependencies of the project: they are installed on first use into
// ~/.cache/petstore, pinned by tools/openapi-checks/package-lock.json and the version below,
// and reused by every later run.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CACHE, ROOT } from './paths';

const SOURCE = path.join(ROOT, 'tools/openapi-checks');
const GENERATOR_VERSION = '7.25.0';

function run(command: string, args: string[], options: SpawnSyncOptions = {}): void {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout ?? ''}${result.stderr ?? ''}`);
  }
}

/** The path of one of node_modules/.bin/{redocly,spectral,prism}, installed once per version of the lock file. */
export function npmTools(): (name: string) => string {
  const lock = fs.readFileSync(path.join(SOURCE, 'package-lock.json'));
  const dir = path.join(CACHE, `openapi-checks-${crypto.createHash('sha256').update(lock).digest('hex').slice(0, 12)}`);
  if (!fs.existsSync(path.join(dir, 'node_modules/.bin/prism'))) {
    fs.mkdirSync(dir, { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(SOURCE, file), path.join(dir, file));
    run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: dir });
  }
  return (name) => path.join(dir, 'node_modules/.bin', name);
}

/** The executable jar of openapi-generator, fetched into the local Maven repository once. */
export function generatorJar(): string {
  const jar = path.join(os.homedir(), `.m2/repository/org/openapitools/openapi-generator-cli/${GENERATOR_VERSION}/openapi-generator-cli-${GENERATOR_VERSION}.jar`);
  if (!fs.existsSync(jar)) {
    run('mvn', ['-q', '-B', 'dependency:get', `-Dartifact=org.openapitools:openapi-generator-cli:${GENERATOR_VERSION}`, '-Dtransitive=false']);
  }
  return jar;
}
