import { CatalogPatterns, CatalogRpc, HealthRpc, InventoryRpc, OrdersPatterns, OrdersRpc } from '..';

describe('defineRpc', () => {
  it('gives each definition its pattern and the service that answers it', () => {
    expect(CatalogRpc.getPet.pattern).toEqual({ cmd: 'pets.get' });
    expect(CatalogRpc.getPet.service).toBe('catalog');
    expect(OrdersRpc.awaitOrder).toMatchObject({ pattern: { cmd: 'orders.await' }, service: 'orders' });
    expect(HealthRpc.check.service).toBeUndefined();
  });

  it('keeps the pattern maps of the definitions', () => {
    expect(CatalogPatterns.listPets).toBe(CatalogRpc.listPets.pattern);
    expect(Object.keys(OrdersPatterns)).toEqual(['placeOrder', 'listOrders', 'getOrder', 'awaitOrder', 'fulfilOrder', 'cancelOrder']);
  });

  it('checks a request against its schema, tolerating fields it does not list', () => {
    const order = { petId: 7, quantity: 2, shipDate: '2026-05-01T10:00:00Z' };
    expect(OrdersRpc.placeOrder.check({ requestId: 'r', order, waitSeconds: 3, traceparent: '00-abc' })).toEqual([]);
    expect(OrdersRpc.placeOrder.check({ requestId: 'r', order: { ...order, quantity: 0, colour: 'red' } })).toEqual([
      { field: 'order', message: 'must NOT have additional properties' },
      { field: 'order.quantity', message: 'must be >= 1' },
    ]);
    expect(InventoryRpc.setStock.check({ requestId: 'r', petId: '7', quantity: 1.5 })).toEqual([{ field: 'quantity', message: 'must be integer' }]);
    expect(OrdersRpc.fulfilOrder.check({ requestId: 'r', id: '5', shipDate: 'tomorrow' })).toEqual([{ field: 'shipDate', message: 'must match format "date-time"' }]);
  });

  it('checks nothing where the service trusts the gateway', () => {
    expect(CatalogRpc.getPet.requestSchema).toBeUndefined();
    expect(CatalogRpc.getPet.check({ anything: true })).toEqual([]);
  });
});
