// What the stacks' own NATS and Redis servers share: a CA and a server certificate, random
// passwords, written readable by this user only and never printed; and how to tell that a server
// the stack started still runs.
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

export { CACHE } from './paths';

/** Writes `content` readable by this user only, without ever printing it. */
export function writeSecret(file: string, content: string): void {
  fs.writeFileSync(file, content, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

function openssl(args: string[], dir: string): void {
  const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') throw new Error('openssl is missing: the stack makes its TLS certificates with it (Debian: `apt-get install openssl`)');
  if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${(result.stderr ?? '').trim()}`);
}

/** A CA, and a server certificate for 127.0.0.1 and localhost signed by it, made once (kept for 10 years). */
export function ensureCertificates(dir: string): void {
  if (fs.existsSync(path.join(dir, 'server.pem'))) return;
  const days = '3650';
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', days, '-subj', '/CN=petstore stack CA'], dir);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  fs.writeFileSync(path.join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', days, '-extfile', 'server.ext'], dir);
  for (const file of ['server.csr', 'server.ext', 'ca.srl']) fs.rmSync(path.join(dir, file), { force: true });
  for (const file of ['ca.key', 'ca.pem', 'server.key', 'server.pem']) fs.chmodSync(path.join(dir, file), 0o600);
}

/** `<identity>.password`: a random password per process, made once. */
export function passwordFile(dir: string, identity: string): string {
  const file = path.join(dir, `${identity}.password`);
  if (!fs.existsSync(file)) writeSecret(file, crypto.randomBytes(24).toString('base64url'));
  return file;
}

export function canConnect(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function runningPid(pidFile: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** Waits until 127.0.0.1:`port` answers, at most 10 s. */
export async function waitForPort(port: number, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await canConnect('127.0.0.1', port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not answer on 127.0.0.1:${port} within 10 s`);
}
