import { assertValidNamespace, namespaced, parseBrokers } from '.';

describe('names', () => {
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
