import { createServer, type Server } from 'node:net';
import { createPetstoreClient, type Attempt } from './client';
import { PetstoreConnectionError } from './errors';

// A real port on which nothing listens: every connection is refused before anything is sent.
let closedPort: number;

beforeAll(async () => {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closedPort = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
});

function client(retry: { deadlineMs: number }, attempts: Attempt[] = []) {
  return createPetstoreClient({ baseUrl: `http://127.0.0.1:${closedPort}`, apiKey: 'key', retry, onAttempt: (attempt) => attempts.push(attempt) });
}

describe('the client without a server', () => {
  it('retries refused connections until its deadline, then says nothing was sent', async () => {
    const attempts: Attempt[] = [];
    const started = Date.now();
    const error = await client({ deadlineMs: 800 }, attempts).placeOrder({ petId: 1, quantity: 1 }, { idempotencyKey: 'k-1' }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(PetstoreConnectionError);
    expect(error).toMatchObject({ maybeSent: false, outcomeUnknown: false, idempotencyKey: 'k-1' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(attempts.length).toBeGreaterThan(1);
    expect(attempts.every((attempt) => attempt.code === 'ECONNREFUSED')).toBe(true);
    expect(attempts.at(-1)?.willRetry).toBe(false);
  });

  it('stops at once when the caller aborts, with the abort as the reason', async () => {
    const started = Date.now();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    await expect(client({ deadlineMs: 30_000 }).getCategory(1, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it.each([2 ** 53, 2 ** 63, 1.5, 0])('refuses the inexact id %d before sending anything', async (petId) => {
    const attempts: Attempt[] = [];
    await expect(client({ deadlineMs: 1_000 }, attempts).placeOrder({ petId, quantity: 1 })).rejects.toThrow(RangeError);
    await expect(client({ deadlineMs: 1_000 }, attempts).getPetDetails(petId)).rejects.toThrow(/is not an exact id/);
    await expect(client({ deadlineMs: 1_000 }, attempts).listOrders({ petId }).next()).rejects.toThrow(/petId .* is not an exact id/);
    expect(attempts).toEqual([]);
  });
});
