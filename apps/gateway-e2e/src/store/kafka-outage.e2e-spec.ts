import { api, eventually, kafka } from '../support/stack';
import { createPet, decided, setStock } from '../support/fixtures';

describe('Kafka stopped while orders are placed', () => {
  afterAll(() => kafka('start'));

  it('decides every order placed during the outage once the broker is back, none lost, none twice', async () => {
    const pet = await createPet();
    await setStock(pet.id, 6);

    kafka('stop');
    const placed = [];
    for (let i = 0; i < 10; i += 1) {
      const response = await api('POST', '/v1/store/orders', { body: { petId: pet.id, quantity: 1 } });
      // Placement needs only the orders database: the event waits in the outbox.
      expect(response.status).toBe(201);
      placed.push(response.body.id as number);
    }
    // Readiness follows the broker: the services say no while it is away, and yes again once it is back.
    const ready = () => api('GET', '/health/ready', { headers: { authorization: undefined } });
    await eventually(ready, (answer) => answer.status === 503, 15_000);
    kafka('start');
    await eventually(ready, (answer) => answer.status === 200, 30_000);

    const outcomes = await Promise.all(placed.map((id) => decided(id, 60_000)));
    expect(outcomes.filter((o) => o.status === 'approved')).toHaveLength(6);
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(4);
    const item = await api('GET', `/v1/store/inventory/${pet.id}`);
    expect(item.body.quantity).toBe(0);
  }, 120_000);
});
