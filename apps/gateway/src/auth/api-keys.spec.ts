import { createHash } from 'node:crypto';
import { ApiKeyring, parseApiKeys } from './api-keys';

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

describe('parseApiKeys', () => {
  it('reads keys given in clear and as SHA-256', () => {
    const keys = parseApiKeys(
      JSON.stringify([
        { name: 'shop', key: 'shop-secret-1', scopes: ['catalog:read', 'orders:write'] },
        { name: 'ops', sha256: hex('ops-secret').toUpperCase(), scopes: ['*'] },
      ]),
    );
    expect(keys).toEqual([
      { name: 'shop', key: 'shop-secret-1', scopes: ['catalog:read', 'orders:write'] },
      { name: 'ops', sha256: hex('ops-secret'), scopes: ['*'] },
    ]);
  });

  it.each([
    ['not JSON', '[', /JSON array/],
    ['not an array', '{}', /JSON array/],
    ['an entry that is no object', '[1]', /entry 0: must be an object/],
    ['a missing name', '[{"key":"k","scopes":["*"]}]', /entry 0: name/],
    ['a duplicate name', '[{"name":"a","key":"k1","scopes":["*"]},{"name":"a","key":"k2","scopes":["*"]}]', /entry 1: name "a" is used twice/],
    ['neither key nor hash', '[{"name":"a","scopes":["*"]}]', /exactly one of key and sha256/],
    ['both key and hash', `[{"name":"a","key":"k","sha256":"${hex('k')}","scopes":["*"]}]`, /exactly one/],
    ['a key with a space', '[{"name":"a","key":"k k","scopes":["*"]}]', /bearer token/],
    ['a short hash', '[{"name":"a","sha256":"abc","scopes":["*"]}]', /64 hexadecimal/],
    ['no scopes', '[{"name":"a","key":"k","scopes":[]}]', /non-empty array/],
    ['an unknown scope', '[{"name":"a","key":"k","scopes":["pets:read"]}]', /unknown scope "pets:read"/],
    ['an unknown field', '[{"name":"a","key":"k","scopes":["*"],"role":"admin"}]', /unknown field role/],
  ])('refuses %s', (_, json, message) => {
    expect(() => parseApiKeys(json)).toThrow(message);
  });
});

describe('ApiKeyring', () => {
  const keyring = new ApiKeyring([
    { name: 'reader', key: 'reader-key', scopes: ['catalog:read'] },
    { name: 'hashed', sha256: hex('hashed-key'), scopes: ['*'] },
  ]);

  it('finds the key in a Bearer header, the scheme in any case', () => {
    expect(keyring.authenticate('Bearer reader-key')?.name).toBe('reader');
    expect(keyring.authenticate('bearer reader-key')?.name).toBe('reader');
    expect(keyring.authenticate('BEARER  reader-key ')?.name).toBe('reader');
    expect(keyring.authenticate('Bearer hashed-key')).toEqual({ name: 'hashed', scopes: new Set(['*']) });
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another scheme', 'Basic cmVhZGVyLWtleQ=='],
    ['no token', 'Bearer '],
    ['the key alone', 'reader-key'],
    ['an unknown key', 'Bearer nobody'],
    ['a longer key', 'Bearer reader-key2'],
    ['a prefix of a key', 'Bearer reader'],
    ['the hash instead of the key', `Bearer ${hex('hashed-key')}`],
    ['two tokens', 'Bearer reader-key reader-key'],
  ])('refuses %s', (_, header) => {
    expect(keyring.authenticate(header)).toBeUndefined();
  });
});
