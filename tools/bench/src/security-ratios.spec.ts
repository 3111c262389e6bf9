import { securityRatios } from './security-ratios';

const run = (mode: 'on' | 'off', decided: number, gateway: number, direct: number) => ({
  mode,
  capacity: { decidedPerSecond: decided },
  reads: [{ name: 'GET /v1/pets?limit=20', gateway: { requestsPerSecond: gateway }, direct: { requestsPerSecond: direct } }],
});

describe('securityRatios', () => {
  it('pairs the i-th on run with the i-th off run and averages the pairs', () => {
    const ratios = securityRatios([run('on', 90, 800, 1800), run('off', 100, 1000, 2000), run('on', 80, 900, 1900), run('off', 100, 1000, 2000)]);
    expect(ratios.sagaDecidedPerSecond).toEqual({ each: [0.9, 0.8], mean: 0.85 });
    expect(ratios.reads['GET /v1/pets?limit=20']).toEqual({ gateway: { each: [0.8, 0.9], mean: 0.85 }, direct: { each: [0.9, 0.95], mean: 0.93 } });
  });

  it('leaves an on run without an off partner out, and has no mean without pairs', () => {
    expect(securityRatios([run('on', 90, 1, 1), run('off', 100, 1, 1), run('on', 10, 1, 1)]).sagaDecidedPerSecond).toEqual({ each: [0.9], mean: 0.9 });
    expect(securityRatios([run('on', 90, 1, 1)]).sagaDecidedPerSecond).toEqual({ each: [], mean: null });
  });
});
