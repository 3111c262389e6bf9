import { nextPageLink } from './paging';

describe('nextPageLink', () => {
  it('adds after to a request without a query', () => {
    expect(nextPageLink('/v1/pets', 20)).toBe('</v1/pets?after=20>; rel="next"');
  });

  it('keeps the filters in their order, repeated ones included, and replaces after', () => {
    expect(nextPageLink('/v1/pets?status=available&limit=2&after=5&status=sold&name=r%C3%A9x', 9)).toBe(
      '</v1/pets?status=available&limit=2&status=sold&name=r%C3%A9x&after=9>; rel="next"',
    );
  });

  it('encodes what the client sent, so the link stays one URI reference', () => {
    expect(nextPageLink('/v1/pets?name=a%3Eb%20c', 3)).toBe('</v1/pets?name=a%3Eb+c&after=3>; rel="next"');
  });
});
