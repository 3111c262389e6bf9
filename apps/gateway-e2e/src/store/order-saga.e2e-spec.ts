import { PetstoreApiError } from '@petstore/client';
import { api, eventually } from '../support/stack';
import { petstore } from '../support/client';
import { converged, createPet, decided, inventoryOf, setStock } from '../support/fixtures';

// Orders are placed, fulfilled and cancelled as a shop does: through @petstore/client.
const store = petstore();

describe('orders and stock through the gateway', () => {
  it('approves an order, takes its units, and follows it to delivery', async () => {
    const pet = await createPet();
    await setStock(pet.id, 3);

    const placed = await store.placeOrder({ petId: pet.id, quantity: 2 });
    expect(placed).toMatchObject({ petId: pet.id, quantity: 2, status: 'placed', complete: false });

    expect(await decided(placed.id)).toMatchObject({ status: 'approved', complete: false });
    await converged(pet.id, 'available', 1);

    const last = await store.placeOrder({ petId: pet.id, quantity: 1 });
    expect(await decided(last.id)).toMatchObject({ status: 'approved' });
    // No stock left, approved orders still open.
    await converged(pet.id, 'pending', 0);

    expect(await store.fulfilOrder(placed.id)).toMatchObject({ status: 'delivered', complete: true });
    expect((await inventoryOf(pet.id)).quantity).toBe(0);

    expect(await store.fulfilOrder(last.id)).toMatchObject({ status: 'delivered' });
    // Nothing left and nothing open: sold.
    await converged(pet.id, 'sold', 0);
  });

  it('rejects with the first reason that applies', async () => {
    const unstocked = await createPet();
    const insufficient = await store.placeOrder({ petId: unstocked.id, quantity: 1 });
    expect(await decided(insufficient.id)).toMatchObject({ status: 'rejected', rejectionReason: 'INSUFFICIENT_STOCK' });

    const pending = await createPet({ status: 'pending' });
    const notAvailable = await store.placeOrder({ petId: pending.id, quantity: 1 });
    expect(await decided(notAvailable.id)).toMatchObject({ status: 'rejected', rejectionReason: 'PET_NOT_AVAILABLE' });
  });

  it('gives the units of a cancelled approved order back', async () => {
    const pet = await createPet();
    await setStock(pet.id, 2);
    const order = await store.placeOrder({ petId: pet.id, quantity: 2 });
    expect(await decided(order.id)).toMatchObject({ status: 'approved' });
    await converged(pet.id, 'pending', 0);

    expect(await store.cancelOrder(order.id)).toMatchObject({ status: 'cancelled', complete: false });
    await converged(pet.id, 'available', 2);

    const again = await store.cancelOrder(order.id).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(PetstoreApiError);
    expect(again).toMatchObject({ status: 409, code: 'ORDER_NOT_CANCELLABLE', body: { code: 'ORDER_NOT_CANCELLABLE', status: 409 } });
  });

  it('keeps no stock for an order cancelled before it was decided', async () => {
    const pet = await createPet();
    await setStock(pet.id, 5);
    const order = await store.placeOrder({ petId: pet.id, quantity: 5 });
    expect((await store.cancelOrder(order.id)).status).toBe('cancelled');

    // Whatever inventory decided in between, the units end up free again.
    await converged(pet.id, 'available', 5);
    expect((await store.getOrder(order.id)).status).toBe('cancelled');
  });

  it('sells exactly the stock when many orders race for it', async () => {
    const pet = await createPet();
    await setStock(pet.id, 10);
    const orders = await Promise.all(Array.from({ length: 50 }, () => store.placeOrder({ petId: pet.id, quantity: 1 })));
    expect(new Set(orders.map((o) => o.id)).size).toBe(50);
    const outcomes = await Promise.all(orders.map((o) => decided(o.id)));
    expect(outcomes.filter((o) => o.status === 'approved')).toHaveLength(10);
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(40);
    await converged(pet.id, 'pending', 0);
  });

  it('orders a pet created a moment ago', async () => {
    const pet = await createPet();
    expect(await store.placeOrder({ petId: pet.id, quantity: 1 })).toMatchObject({ petId: pet.id, status: 'placed' });
  });

  it('cancels the open orders of a deleted pet and keeps them readable', async () => {
    const pet = await createPet();
    await setStock(pet.id, 1);
    const order = await store.placeOrder({ petId: pet.id, quantity: 1 });
    expect(await decided(order.id)).toMatchObject({ status: 'approved' });

    expect((await api('DELETE', `/v1/pets/${pet.id}`)).status).toBe(204);
    const cancelled = await eventually(
      () => api('GET', `/v1/store/orders/${order.id}`),
      (r) => r.body.status === 'cancelled',
    );
    expect(cancelled.status).toBe(200);
    await eventually(
      () => api('GET', `/v1/store/inventory/${pet.id}`),
      (r) => r.status === 404,
    );
  });
});
