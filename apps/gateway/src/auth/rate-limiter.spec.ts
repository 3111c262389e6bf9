import { RateLimiter } from './rate-limiter';

describe('RateLimiter', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 10_000;
  });

  it('allows the quota within a second, then refuses until the window restarts', () => {
    const limiter = new RateLimiter(3, 1000, clock);
    expect(limiter.take('a')).toEqual({ allowed: true, remaining: 2, resetSeconds: 1 });
    expect(limiter.take('a')).toEqual({ allowed: true, remaining: 1, resetSeconds: 1 });
    now += 400;
    expect(limiter.take('a')).toEqual({ allowed: true, remaining: 0, resetSeconds: 1 });
    expect(limiter.take('a')).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 });
    now += 599;
    expect(limiter.take('a').allowed).toBe(false);
    now += 1;
    expect(limiter.take('a')).toEqual({ allowed: true, remaining: 2, resetSeconds: 1 });
  });

  it('counts each key on its own', () => {
    const limiter = new RateLimiter(1, 1000, clock);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('b').allowed).toBe(true);
  });

  it('reports whole seconds to the reset for longer windows', () => {
    const limiter = new RateLimiter(1, 5000, clock);
    limiter.take('a');
    now += 1200;
    expect(limiter.take('a')).toEqual({ allowed: false, remaining: 0, resetSeconds: 4 });
    expect(limiter.policyHeader).toBe('"default";q=1;w=5');
  });

  it('writes the draft headers in structured-field form', () => {
    const limiter = new RateLimiter(1000);
    expect(limiter.policyHeader).toBe('"default";q=1000;w=1');
    expect(RateLimiter.header({ allowed: true, remaining: 998, resetSeconds: 1 })).toBe('"default";r=998;t=1');
  });
});
