import { spawnSync } from 'node:child_process';

/** Debian's package of a server, installed on first use as Kafka is fetched on first use; the binary's path. */
export function installPackage(pkg: string, binary: string): string {
  const found = spawnSync('sh', ['-c', `command -v ${binary} || ls /usr/sbin/${binary} /usr/bin/${binary} 2>/dev/null | head -1`], { encoding: 'utf8' });
  const existing = found.stdout.trim().split('\n')[0];
  if (existing) return existing;
  process.stderr.write(`${binary} is missing: installing Debian's ${pkg}\n`);
  const install = () => spawnSync('apt-get', ['install', '-y', '-q', pkg], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (install().status !== 0) {
    spawnSync('apt-get', ['update', '-q'], { stdio: 'inherit' });
    if (install().status !== 0) throw new Error(`Installing ${pkg} failed: run \`apt-get install ${pkg}\` as root`);
  }
  return installPackage(pkg, binary);
}
