import { createPet, placeOrder, setStock } from '../support/fixtures';
import { api } from '../support/stack';

// Prefer: wait (API.md §9) through the whole stack: the gateway parses and forwards it, the
// orders service holds the answer until the inventory service has decided.
describe('Prefer: wait', () => {
  it('answers a placement once the order is decided, and says the preference was applied', async () => {
    const pet = await createPet();
    await setStock(pet.id, 1);
    const approved = await placeOrder(pet.id, 1, { prefer: 'wait=5' });
    expect(approved.status).toBe(201);
    expect(approved.body).toMatchObject({ petId: pet.id, status: 'approved' });
    expect(approved.headers.get('preference-applied')).toMatch(/^wait=\d+$/);

    // The approved order took the last unit: the pet is no longer available.
    const rejected = await placeOrder(pet.id, 1, { prefer: 'respond-async, wait=5' });
    expect(rejected.body).toMatchObject({ status: 'rejected', rejectionReason: 'PET_NOT_AVAILABLE' });
    const read = await api('GET', `/v1/store/orders/${rejected.body.id}`, { headers: { prefer: 'wait=2' } });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(rejected.body);
  });

  it('answers at once, without Preference-Applied, when no wait is asked', async () => {
    const pet = await createPet();
    const placed = await placeOrder(pet.id, 1, { prefer: 'wait=0' });
    expect(placed.status).toBe(201);
    expect(placed.headers.get('preference-applied')).toBeNull();
  });
});
