/**
 * HAProxy in front of the gateways, in the compose stack (docker/haproxy/haproxy.cfg) and in
 * `npm run cluster` (tools/stack/src/cluster/haproxy.ts). A client that keeps a connection idle
 * longer than HAProxy does sends its next request on a connection HAProxy is closing, and gets no answer.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import { CLIENT_KEEP_ALIVE_S, clusterLayout, startBalancer, waitForBalancer } from '@petstore/stack';

const root = join(__dirname, '..', '..', '..');
/** The gateway's own idle timeout (Fastify's default), which it announces in `Keep-Alive`. */
const GATEWAY_KEEP_ALIVE_MS = 72_000;

describe('the compose stack\'s HAProxy', () => {
  const config = readFileSync(join(root, 'docker/haproxy/haproxy.cfg'), 'utf8');

  it('tells clients its own idle timeout, not the gateway\'s', () => {
    const [, idle] = /^\s*timeout http-keep-alive (\d+)s$/m.exec(config) ?? [];
    const [, announced] = /^\s*http-after-response set-header keep-alive timeout=(\d+)$/m.exec(config) ?? [];
    expect({ idle: Number(idle), announced: Number(announced) }).toEqual({ idle: 10, announced: 10 });
  });
});

describe('`npm run cluster`\'s HAProxy, running', () => {
  // Ports 18000–18200: clear of the other stacks' and below the range Linux hands out to outgoing connections (32768 on).
  const layout = clusterLayout({ offset: 15_000 });
  const gateways: Server[] = [];
  let balancer: ChildProcess | undefined;

  beforeAll(async () => {
    // Stand-ins for the gateways: they answer every path 200 and keep idle connections as a gateway does.
    for (const name of layout.gateways) {
      const server = createServer((_request, response) => response.end('{}'));
      server.keepAliveTimeout = GATEWAY_KEEP_ALIVE_MS;
      await new Promise<void>((resolve) => server.listen(Number(layout.envOf(name).HTTP_PORT), '127.0.0.1', resolve));
      gateways.push(server);
    }
    balancer = await startBalancer(layout, { output: new Writable({ write: (_chunk, _encoding, done) => done() }) });
    await waitForBalancer(layout);
  }, 120_000);

  afterAll(async () => {
    balancer?.kill('SIGTERM');
    for (const server of gateways) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('tells clients its own idle timeout, not the gateway\'s', async () => {
    const response = await fetch(`http://127.0.0.1:${layout.balancer.port}/v1/pets`);
    await response.text();
    expect({ status: response.status, keepAlive: response.headers.get('keep-alive') }).toEqual({
      status: 200,
      keepAlive: `timeout=${CLIENT_KEEP_ALIVE_S}`,
    });
    expect(CLIENT_KEEP_ALIVE_S * 1000).toBeLessThan(GATEWAY_KEEP_ALIVE_MS);
  });
});
