// How the entry points under scripts/ reach the tools: build the tool's bundle as the apps are
// built (Nx caches it, so an unchanged tool costs a cache lookup), then load it. Plain JavaScript,
// because it runs before anything is built, on the README's Node.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** Builds `tools/<name>` and returns what its `src/main.ts` exports. */
export function loadTool(name) {
  const result = spawnSync('npx', ['nx', 'build', name, '--outputStyle=static'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
  });
  if (result.status !== 0) {
    process.stdout.write(result.stdout ?? '');
    throw new Error(`Building tools/${name} failed (see the messages above)`);
  }
  return require(path.join(ROOT, 'dist/tools', name, 'main.js'));
}

/** Runs a tool's command as a script's whole job: its exit code is the process's, an error its message. */
export async function runTool(name, command, ...args) {
  try {
    const code = await loadTool(name)[command](...args);
    process.exitCode = typeof code === 'number' ? code : 0;
  } catch (error) {
    console.error(`\n${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

/**
 * Runs this script again on Node 24, the images' runtime (scripts/node24.sh fetches it once),
 * when it started on an older Node, and exits with that run's code: figures are taken on what
 * the containers run. Returns at once on Node 24 or newer.
 */
export async function onImagesNode(name) {
  if (Number(process.versions.node.split('.')[0]) >= 24) return;
  const bin = execFileSync('bash', [path.join(ROOT, 'scripts/node24.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  console.log(`[${name}] this is Node ${process.versions.node}; running on Node 24 (${bin})`);
  const child = spawn(path.join(bin, 'node'), process.argv.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
  });
  // Ctrl-C reaches both processes (one process group) and the run stops itself; a SIGTERM sent to this one alone is passed on.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  const code = await new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 1)));
  process.exit(code);
}
