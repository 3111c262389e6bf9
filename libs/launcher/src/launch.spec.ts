import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { launch } from './launch';
import { builtAppMain, workspaceRoot } from './workspace-root';

// Real child processes (small Node programs written here), no services: what a user of the
// launcher sees is whether it waits, fails with the process's words, and stops what it started.
const folder = mkdtempSync(join(tmpdir(), 'launcher-'));

function program(name: string, source: string): string {
  const file = join(folder, name, 'main.js');
  mkdirSync(join(folder, name), { recursive: true });
  writeFileSync(file, source);
  return file;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Listens after `delayMs`, answers 200 on /health/ready, says goodbye and exits on SIGTERM. */
const SERVICE = `
const http = require('node:http');
console.log('starting ' + process.argv[2]);
const server = http.createServer((req, res) => { res.statusCode = req.url === '/health/ready' ? 200 : 404; res.end(); });
setTimeout(() => server.listen(Number(process.env.PORT), '127.0.0.1'), Number(process.env.DELAY_MS ?? 0));
process.on('SIGTERM', () => { console.log('drained'); server.close(() => process.exit(0)); });
`;

describe('launch', () => {
  it('waits until the process answers ready, and forwards its lines labelled', async () => {
    const port = await freePort();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk) => (written += chunk));
    const service = launch(program('catalog', SERVICE), { args: ['now'], env: { PORT: String(port), DELAY_MS: '300' }, output });
    await service.ready(`http://127.0.0.1:${port}/health/ready`, 10_000);
    expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    await service.stop();
    expect(await service.exited()).toBe(0);
    expect(written).toContain('[catalog]    starting now');
    expect(written).toContain('drained');
  });

  it('fails as soon as the process exits before it is ready, quoting what it said', async () => {
    const broken = launch(program('orders', "console.error('DATABASE_URL is missing'); process.exit(3);"));
    await expect(broken.ready('http://127.0.0.1:9/health/ready', 10_000)).rejects.toThrow(/exited \(3\)[\s\S]*\[orders\] DATABASE_URL is missing/);
  });

  it('kills a process that does not stop within the timeout', async () => {
    const stubborn = launch(program('stubborn', "process.on('SIGTERM', () => console.log('ignored')); setInterval(() => undefined, 1000); console.log('up');"));
    await new Promise((resolve) => stubborn.child.stdout?.once('data', resolve));
    const started = Date.now();
    await stubborn.stop(500);
    expect(stubborn.child.signalCode).toBe('SIGKILL');
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(stubborn.outputTail()).toContain('[stubborn] ignored');
  });

  it('gives up on a process that never answers, after the timeout', async () => {
    const silent = launch(program('silent', "setInterval(() => undefined, 1000); console.log('listening nowhere');"));
    await expect(silent.ready('http://127.0.0.1:9/health/ready', 500)).rejects.toThrow(/did not answer 200 within 0.5 s[\s\S]*listening nowhere/);
    await silent.stop();
  });
});

describe('workspaceRoot', () => {
  it('is the folder with nx.json, and the built apps are under its dist/apps', () => {
    expect(existsSync(join(workspaceRoot, 'nx.json'))).toBe(true);
    expect(builtAppMain('catalog')).toBe(join(workspaceRoot, 'dist/apps/catalog/main.js'));
  });
});
