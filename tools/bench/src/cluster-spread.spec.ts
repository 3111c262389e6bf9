import { rpcServedOf, spreadOf } from './cluster-spread';

describe('RPC spread over replicas', () => {
  it('sums the served counts of a replica over its patterns', () => {
    const metrics = [
      '# TYPE petstore_rpc_server_duration_seconds histogram',
      'petstore_rpc_server_duration_seconds_bucket{pattern="pets.get",le="0.1"} 90',
      'petstore_rpc_server_duration_seconds_count{pattern="pets.get"} 100',
      'petstore_rpc_server_duration_seconds_count{pattern="pets.list"} 25',
    ].join('\n');
    expect(rpcServedOf(metrics)).toBe(125);
    expect(rpcServedOf('')).toBe(0);
  });

  it('gives each replica its share of its tier between two readings', () => {
    const spread = spreadOf({ 'catalog-1': 100, 'catalog-2': 50, 'orders-1': 7 }, { 'catalog-1': 400, 'catalog-2': 150, 'orders-1': 7, 'orders-2': 0 });
    expect(spread.catalog).toEqual({ total: 400, shares: { 'catalog-1': 0.75, 'catalog-2': 0.25 } });
    expect(spread.orders).toEqual({ total: 0, shares: { 'orders-1': null, 'orders-2': null } });
  });
});
