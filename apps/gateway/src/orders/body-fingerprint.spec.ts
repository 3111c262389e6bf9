// The fingerprint of an idempotent request's body: keys sorted (safe-stable-stringify), as RFC 8785 does.
import { stringify as canonicalJson } from 'safe-stable-stringify';

describe('canonicalJson', () => {
  it('gives the same text for the same value in any key order', () => {
    const a = JSON.parse('{"quantity": 2, "petId": 7, "shipDate": "2026-05-01T10:00:00Z"}');
    const b = JSON.parse('{"shipDate":"2026-05-01T10:00:00Z","petId":7,"quantity":2}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"petId":7,"quantity":2,"shipDate":"2026-05-01T10:00:00Z"}');
  });

  it('sorts nested objects, keeps array order and writes numbers as JSON does', () => {
    expect(canonicalJson({ b: [3, { z: 1, a: 2 }], a: 1.0, c: 'é"' })).toBe('{"a":1,"b":[3,{"a":2,"z":1}],"c":"é\\""}');
    expect(canonicalJson(JSON.parse('{"n": 1.50}'))).toBe('{"n":1.5}');
  });

  it('tells different values apart', () => {
    expect(canonicalJson({ petId: 7, quantity: 2 })).not.toBe(canonicalJson({ petId: 7, quantity: 3 }));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
  });

  it('writes scalars', () => {
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson('x')).toBe('"x"');
  });
});
