import { preferredWait } from './prefer';

describe('preferredWait (Prefer: wait, RFC 7240)', () => {
  it.each([
    ['wait=5', 5],
    ['wait=1', 1],
    ['wait=10', 10],
    ['wait=11', 10],
    ['wait=99999999999999999999', 10],
    ['WAIT=3', 3],
    ['wait = 4', 4],
    ['wait="6"', 6],
    ['wait=007', 7],
    ['respond-async, wait=5', 5],
    ['handling=lenient; x=1, wait=2', 2],
    ['wait=3, wait=8', 3],
    ['foo="a, b", wait=4', 4],
    ['wait=5; foo=bar', 5],
  ])('reads %p as %p seconds', (header, seconds) => {
    expect(preferredWait(header)).toBe(seconds);
  });

  it('reads several Prefer headers as one list', () => {
    expect(preferredWait(['respond-async', 'wait=9'])).toBe(9);
  });

  it.each([undefined, '', 'wait=0', 'wait=abc', 'wait=5.5', 'wait=-1', 'wait', 'wait=', 'respond-async', 'foo; wait=5', 'foo="wait=5"', 'waiting=5'])(
    'asks for no wait with %p',
    (header) => {
      expect(preferredWait(header)).toBeUndefined();
    },
  );
});
