import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
const { requestTimeoutCheckMs } = require('./request-queue-fix.cjs') as { requestTimeoutCheckMs(timeout: number): number };

describe('kafkajs request queue fix', () => {
  it('looks for timed-out requests a tenth of the timeout apart, from 100 ms to a second', () => {
    expect(requestTimeoutCheckMs(500)).toBe(100);
    expect(requestTimeoutCheckMs(3000)).toBe(300);
    expect(requestTimeoutCheckMs(10_000)).toBe(1000);
    expect(requestTimeoutCheckMs(30_000)).toBe(1000);
  });

  describe('a broker that takes the connection and never answers', () => {
    let server: Server;
    const sockets: Socket[] = [];

    beforeAll(async () => {
      server = createServer((socket) => sockets.push(socket.on('error', () => undefined)));
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
    });

    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    });

    it('still fails the request once its timeout has passed', async () => {
      const kafka = new Kafka({
        clientId: 'request-timeout-check',
        brokers: [`127.0.0.1:${(server.address() as AddressInfo).port}`],
        requestTimeout: 1500,
        connectionTimeout: 1000,
        retry: { retries: 0 },
        logLevel: logLevel.NOTHING,
      });
      const admin = kafka.admin();
      await expect(admin.connect()).rejects.toThrow(/timed out/i);
      await admin.disconnect();
    }, 10_000);
  });
});
