import { requestIdFor } from './request-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFor', () => {
  it.each(['a', 'abc-123', 'A.b_c:d-e', 'x'.repeat(128), '0'])('keeps the client id %p', (id) => {
    expect(requestIdFor(id)).toBe(id);
  });

  it.each([
    ['empty', ''],
    ['too long', 'x'.repeat(129)],
    ['a space', 'a b'],
    ['a slash', 'a/b'],
    ['non-ASCII', 'héllo'],
    ['a newline', 'a\nb'],
    ['a quote', 'a"b'],
  ])('replaces an id with %s', (_, id) => {
    expect(requestIdFor(id)).toMatch(UUID);
  });

  it('makes a new id when there is none, or several', () => {
    expect(requestIdFor(undefined)).toMatch(UUID);
    expect(requestIdFor(['a', 'b'])).toMatch(UUID);
    expect(requestIdFor(undefined)).not.toBe(requestIdFor(undefined));
  });
});
