import { api, eventually, stackState, startService, stopService } from '../support/stack';
import { createPet, expectError, uniqueName, type ApiResponse } from '../support/fixtures';

const noKey = { authorization: undefined };

async function timed(request: Promise<ApiResponse>): Promise<[ApiResponse, number]> {
  const start = Date.now();
  const response = await request;
  return [response, Date.now() - start];
}

async function ready(): Promise<ApiResponse> {
  return eventually(
    () => api('GET', '/health/ready', { headers: noKey }),
    (r) => r.status === 200,
    30_000,
  );
}

/** Freezes a service without closing its sockets: it accepts requests and answers none until thawed. */
async function whilePaused(service: string, body: () => Promise<void>): Promise<void> {
  const pid = stackState().pids[service];
  process.kill(pid, 'SIGSTOP');
  try {
    await body();
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

describe('a service behind the gateway is down or slow', () => {
  afterEach(async () => {
    // Whatever a test left behind, the next one (and the next file) gets the whole stack.
    expect((await ready()).status).toBe(200);
  }, 60_000);

  it('answers 503 SERVICE_UNAVAILABLE at once while the catalog is stopped, and recovers once it is back', async () => {
    const pet = await createPet();
    const name = uniqueName('Outage');
    await stopService('catalog');
    try {
      for (const [method, path, body] of [
        ['GET', '/v1/pets', undefined],
        ['GET', `/v1/pets/${pet.id}`, undefined],
        ['GET', `/v2/pets/${pet.id}`, undefined],
        ['POST', '/v1/pets', { name, categoryId: pet.categoryId }],
        ['PATCH', `/v1/pets/${pet.id}`, { status: 'sold' }],
        ['GET', '/v1/categories', undefined],
      ] as Array<[string, string, unknown]>) {
        const [response, elapsed] = await timed(api(method, path, { body }));
        expectError(response, 503, 'SERVICE_UNAVAILABLE');
        // At once: nobody is there to wait for (a margin for a busy test machine).
        expect({ path, elapsed: elapsed < 1_500 }).toEqual({ path, elapsed: true });
      }

      // The checks before the service still come first.
      expectError(await api('GET', '/v1/pets', { headers: noKey }), 401, 'UNAUTHORIZED');
      expectError(await api('GET', '/v1/pets?limit=0'), 400, 'VALIDATION_FAILED');

      // The rest of the surface stays up.
      expect((await api('GET', '/v1/store/orders?limit=1')).status).toBe(200);
      expect((await api('GET', '/health/live', { headers: noKey })).status).toBe(200);
      const notReady = await api('GET', '/health/ready', { headers: noKey });
      expect(notReady.status).toBe(503);
      expect(notReady.headers.get('content-type')).toMatch(/^application\/json\b/);
    } finally {
      await startService('catalog');
    }

    const back = await eventually(
      () => api('GET', `/v1/pets/${pet.id}`),
      (r) => r.status === 200,
    );
    // Nothing that was refused happened.
    expect(back.body).toEqual(pet);
    expect((await api('GET', `/v1/pets?name=${encodeURIComponent(name)}`)).body).toEqual([]);
    await ready();
  }, 90_000);

  it('answers /v2/pets/{petId} without the inventory part within about a second while inventory is stopped', async () => {
    const pet = await createPet();
    const stock = { quantity: 0, status: 'available' };
    await eventually(
      () => api('GET', `/v2/pets/${pet.id}`),
      (r) => r.status === 200 && r.body.inventory !== null,
    );

    await stopService('inventory');
    try {
      const [details, elapsed] = await timed(api('GET', `/v2/pets/${pet.id}`));
      expect(details.status).toBe(200);
      expect(details.body).toMatchObject({ ...pet, inventory: null });
      // The inventory part waits 500 ms at most, and a service that is not there fails it sooner:
      // far from the 5 s any other RPC may take, however busy the machine is.
      expect(elapsed).toBeLessThan(2_500);

      expectError(await api('GET', `/v1/store/inventory/${pet.id}`), 503, 'SERVICE_UNAVAILABLE');
      expect((await api('GET', `/v1/pets/${pet.id}`)).status).toBe(200);
      expect((await api('GET', '/health/ready', { headers: noKey })).status).toBe(503);
    } finally {
      await startService('inventory');
    }

    const restored = await eventually(
      () => api('GET', `/v2/pets/${pet.id}`),
      (r) => r.status === 200 && r.body.inventory !== null,
    );
    expect(restored.body.inventory).toEqual(stock);
  }, 90_000);

  it('answers inventory: null after about 500 ms when inventory does not answer in time', async () => {
    const pet = await createPet();
    await eventually(
      () => api('GET', `/v2/pets/${pet.id}`),
      (r) => r.status === 200 && r.body.inventory !== null,
    );

    await whilePaused('inventory', async () => {
      const [details, elapsed] = await timed(api('GET', `/v2/pets/${pet.id}`));
      expect(details.status).toBe(200);
      expect(details.body).toMatchObject({ ...pet, inventory: null });
      expect(elapsed).toBeGreaterThanOrEqual(450);
      expect(elapsed).toBeLessThan(2_500);
    });

    await eventually(
      () => api('GET', `/v2/pets/${pet.id}`),
      (r) => r.status === 200 && r.body.inventory !== null,
    );
  }, 60_000);

  it('answers 504 UPSTREAM_TIMEOUT when the catalog does not answer in time', async () => {
    const pet = await createPet();
    await whilePaused('catalog', async () => {
      const [response, elapsed] = await timed(api('GET', `/v1/pets/${pet.id}`));
      expectError(response, 504, 'UPSTREAM_TIMEOUT');
      // The gateway's default upstream timeout is 5 s.
      expect(elapsed).toBeGreaterThanOrEqual(4_500);
      expect(elapsed).toBeLessThan(10_000);
    });
    const back = await eventually(
      () => api('GET', `/v1/pets/${pet.id}`),
      (r) => r.status === 200,
    );
    expect(back.body).toEqual(pet);
  }, 60_000);
});
