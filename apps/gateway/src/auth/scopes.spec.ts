import { areaOf, grants, requiredScope } from './scopes';

describe('requiredScope', () => {
  it.each([
    ['GET', '/v1/pets', 'catalog:read'],
    ['HEAD', '/v1/pets', 'catalog:read'],
    ['POST', '/v1/pets', 'catalog:write'],
    ['GET', '/v1/pets/5', 'catalog:read'],
    ['PUT', '/v1/pets/5', 'catalog:write'],
    ['PATCH', '/v1/pets/5', 'catalog:write'],
    ['DELETE', '/v1/pets/5', 'catalog:write'],
    ['GET', '/v2/pets/5', 'catalog:read'],
    ['GET', '/v1/categories', 'catalog:read'],
    ['POST', '/v1/categories', 'catalog:write'],
    ['DELETE', '/v1/categories/3', 'catalog:write'],
    ['GET', '/v1/store/orders', 'orders:read'],
    ['POST', '/v1/store/orders', 'orders:write'],
    ['PATCH', '/v1/store/orders/1', 'orders:write'],
    ['POST', '/v1/store/orders/1/cancel', 'orders:write'],
    ['GET', '/v1/store/inventory', 'inventory:read'],
    ['GET', '/v1/store/inventory/1', 'inventory:read'],
    ['PUT', '/v1/store/inventory/1', 'inventory:write'],
    ['OPTIONS', '/v1/store/inventory/1', 'inventory:write'],
  ])('%s %s needs %s', (method, path, scope) => {
    expect(requiredScope(method, path)).toBe(scope);
  });

  it.each(['/v1/petsitter', '/v1/store', '/v1/store/ordersX', '/v3/pets', '/pets', '/', '/v1', '/v2/categories'])(
    '%s belongs to no area',
    (path) => {
      expect(areaOf(path)).toBeUndefined();
      expect(requiredScope('GET', path)).toBeUndefined();
    },
  );
});

describe('grants', () => {
  it('grants what is listed, everything with *, and nothing implied', () => {
    expect(grants(new Set(['catalog:read']), 'catalog:read')).toBe(true);
    expect(grants(new Set(['catalog:read']), 'catalog:write')).toBe(false);
    expect(grants(new Set(['catalog:write']), 'catalog:read')).toBe(false);
    expect(grants(new Set(['orders:read']), 'catalog:read')).toBe(false);
    expect(grants(new Set(['*']), 'inventory:write')).toBe(true);
    expect(grants(new Set(), 'orders:read')).toBe(false);
  });
});
