import { assertValidNamespace, backoffDelay, namespaced, parseBrokers } from '.';

describe('backoff and names', () => {
  it('doubles the delay from the initial one up to the cap', () => {
    const backoff = { initialMs: 50, maxMs: 1000 };
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => backoffDelay(attempt, backoff))).toEqual([
      50, 100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('prefixes names with the namespace', () => {
    expect(namespaced('t-1a2b3c4d.', 'catalog.pet.v1')).toBe('t-1a2b3c4d.catalog.pet.v1');
    expect(namespaced('', 'catalog')).toBe('catalog');
    expect(() => assertValidNamespace('bad namespace/')).toThrow('Invalid Kafka namespace');
  });

  it('reads a broker list from the environment form', () => {
    expect(parseBrokers(' a:9092, b:9092 ,')).toEqual(['a:9092', 'b:9092']);
    expect(() => parseBrokers('')).toThrow('No Kafka broker given');
  });
});
