import { nextLink, retryAfterMs, retryDelay } from './retry-policy';

describe('retryDelay', () => {
  const policy = { initialMs: 100, maxMs: 2_000 };

  it('doubles the bound with each failed attempt up to the cap, and waits between half the bound and the bound', () => {
    const bounds = [1, 2, 3, 4, 5, 6, 7].map((attempt) => retryDelay(attempt, policy, () => 1));
    expect(bounds).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
    expect([1, 2, 6].map((attempt) => retryDelay(attempt, policy, () => 0))).toEqual([50, 100, 1000]);
  });

  it('spreads clients with the random share', () => {
    expect(retryDelay(3, policy, () => 0.5)).toBe(300);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-28T04:00:00Z');

  it('reads delay-seconds', () => {
    expect(retryAfterMs('1', now)).toBe(1000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date, and a past one as no wait', () => {
    expect(retryAfterMs('Sat, 28 Nov 2026 04:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('Sat, 28 Nov 2026 03:59:00 GMT', now)).toBe(0);
  });

  it.each([null, undefined, '', 'soon', '-1', '1.5'])('answers nothing for %p', (header) => {
    expect(retryAfterMs(header, now)).toBeUndefined();
  });
});

describe('nextLink', () => {
  const base = 'http://localhost:3000/v1/pets?limit=2';

  it('resolves a relative target against the request', () => {
    expect(nextLink('</v1/pets?limit=2&after=7>; rel="next"', base)?.href).toBe('http://localhost:3000/v1/pets?limit=2&after=7');
    expect(nextLink('<?limit=2&after=7>; rel=next', base)?.href).toBe('http://localhost:3000/v1/pets?limit=2&after=7');
  });

  it('picks the next link among others, with rel lists, quoted commas and any case', () => {
    const header = '</v2/pets/1>; rel="successor-version", </v1/pets?after=9>; title="a, b"; REL="prev next"';
    expect(nextLink(header, base)?.pathname + (nextLink(header, base)?.search ?? '')).toBe('/v1/pets?after=9');
  });

  it.each([null, '', '</v2/pets/1>; rel="successor-version"', '</v1/pets?after=9>; rel="nextpage"'])('finds none in %p', (header) => {
    expect(nextLink(header, base)).toBeUndefined();
  });
});
