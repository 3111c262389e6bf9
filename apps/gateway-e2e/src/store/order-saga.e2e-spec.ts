import { api, eventually } from '../support/stack';
import { converged, createPet, decided, inventoryOf, placeOrder, setStock } from '../support/fixtures';

describe('orders and stock through the gateway', () => {
  it('approves an order, takes its units, and follows it to delivery', async () => {
    const pet = await createPet();
    await setStock(pet.id, 3);

    const placed = await placeOrder(pet.id, 2);
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({ petId: pet.id, quantity: 2, status: 'placed', complete: false });

    expect(await decided(placed.body.id)).toMatchObject({ status: 'approved', complete: false });
    await converged(pet.id, 'available', 1);

    const last = await placeOrder(pet.id, 1);
    expect(await decided(last.body.id)).toMatchObject({ status: 'approved' });
    // No stock left, approved orders still open.
    await converged(pet.id, 'pending', 0);

    const delivered = await api('PATCH', `/v1/store/orders/${placed.body.id}`, { body: { complete: true } });
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({ status: 'delivered', complete: true });
    expect((await inventoryOf(pet.id)).quantity).toBe(0);

    const lastDelivered = await api('PATCH', `/v1/store/orders/${last.body.id}`, { body: { complete: true } });
    expect(lastDelivered.status).toBe(200);
    // Nothing left and nothing open: sold.
    await converged(pet.id, 'sold', 0);
  });

  it('rejects with the first reason that applies', async () => {
    const unstocked = await createPet();
    const insufficient = await placeOrder(unstocked.id, 1);
    expect(await decided(insufficient.body.id)).toMatchObject({ status: 'rejected', rejectionReason: 'INSUFFICIENT_STOCK' });

    const pending = await createPet({ status: 'pending' });
    const notAvailable = await placeOrder(pending.id, 1);
    expect(await decided(notAvailable.body.id)).toMatchObject({ status: 'rejected', rejectionReason: 'PET_NOT_AVAILABLE' });
  });

  it('gives the units of a cancelled approved order back', async () => {
    const pet = await createPet();
    await setStock(pet.id, 2);
    const order = await placeOrder(pet.id, 2);
    expect(await decided(order.body.id)).toMatchObject({ status: 'approved' });
    await converged(pet.id, 'pending', 0);

    const cancelled = await api('POST', `/v1/store/orders/${order.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', complete: false });
    await converged(pet.id, 'available', 2);

    const again = await api('POST', `/v1/store/orders/${order.body.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'ORDER_NOT_CANCELLABLE', status: 409 });
  });

  it('keeps no stock for an order cancelled before it was decided', async () => {
    const pet = await createPet();
    await setStock(pet.id, 5);
    const order = await placeOrder(pet.id, 5);
    const cancelled = await api('POST', `/v1/store/orders/${order.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');

    // Whatever inventory decided in between, the units end up free again.
    await converged(pet.id, 'available', 5);
    expect((await api('GET', `/v1/store/orders/${order.body.id}`)).body.status).toBe('cancelled');
  });

  it('sells exactly the stock when many orders race for it', async () => {
    const pet = await createPet();
    await setStock(pet.id, 10);
    const orders = await Promise.all(Array.from({ length: 50 }, () => placeOrder(pet.id, 1)));
    expect(orders.every((o) => o.status === 201)).toBe(true);
    const outcomes = await Promise.all(orders.map((o) => decided(o.body.id)));
    expect(outcomes.filter((o) => o.status === 'approved')).toHaveLength(10);
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(40);
    await converged(pet.id, 'pending', 0);
  });

  it('orders a pet created a moment ago', async () => {
    const pet = await createPet();
    const order = await placeOrder(pet.id, 1);
    expect(order.status).toBe(201);
  });

  it('cancels the open orders of a deleted pet and keeps them readable', async () => {
    const pet = await createPet();
    await setStock(pet.id, 1);
    const order = await placeOrder(pet.id, 1);
    expect(await decided(order.body.id)).toMatchObject({ status: 'approved' });

    expect((await api('DELETE', `/v1/pets/${pet.id}`)).status).toBe(204);
    const cancelled = await eventually(
      () => api('GET', `/v1/store/orders/${order.body.id}`),
      (r) => r.body.status === 'cancelled',
    );
    expect(cancelled.status).toBe(200);
    await eventually(
      () => api('GET', `/v1/store/inventory/${pet.id}`),
      (r) => r.status === 404,
    );
  });
});
