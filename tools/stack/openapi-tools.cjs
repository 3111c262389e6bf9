// The tools that judge the gateway's OpenAPI document from outside: Redocly and Spectral
// (lint), Prism (a validating proxy) from the npm registry, openapi-generator from Maven
// Central. They are not dependencies of the project: they are installed on first use into
// ~/.cache/petstore, pinned by tools/openapi-checks/package-lock.json and the version below,
// and reused by every later run.
'use strict';
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '../..');
const SOURCE = path.join(ROOT, 'tools/openapi-checks');
const CACHE = path.join(os.homedir(), '.cache/petstore');
const GENERATOR_VERSION = '7.25.0';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout ?? ''}${result.stderr ?? ''}`);
  }
  return result;
}

/** The folder with node_modules/.bin/{redocly,spectral,prism}, installed once per version of the lock file. */
function npmTools() {
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
function generatorJar() {
  const jar = path.join(os.homedir(), `.m2/repository/org/openapitools/openapi-generator-cli/${GENERATOR_VERSION}/openapi-generator-cli-${GENERATOR_VERSION}.jar`);
  if (!fs.existsSync(jar)) {
    run('mvn', ['-q', '-B', 'dependency:get', `-Dartifact=org.openapitools:openapi-generator-cli:${GENERATOR_VERSION}`, '-Dtransitive=false']);
  }
  return jar;
}

module.exports = { npmTools, generatorJar };
