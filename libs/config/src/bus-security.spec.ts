import { BUS_SECURITY_OFF_BENCH_ONLY, busSecurityOff, refuseUnsecuredBus } from './bus-security';

describe('the bus without authentication and TLS', () => {
  it('is refused, naming the variable that is missing, unless the benchmark says so', () => {
    expect(() => refuseUnsecuredBus({}, 'NATS_USER', 'is required')).toThrow(
      /^Invalid configuration: NATS_USER is required: the bus is always authenticated and encrypted \(BUS_SECURITY_OFF_BENCH_ONLY=true serves only/,
    );
    expect(() => refuseUnsecuredBus({ [BUS_SECURITY_OFF_BENCH_ONLY]: 'yes' }, 'NATS_USER', 'is required')).toThrow(/NATS_USER/);
    expect(() => refuseUnsecuredBus({ [BUS_SECURITY_OFF_BENCH_ONLY]: ' true ' }, 'NATS_USER', 'is required')).not.toThrow();
  });

  it('is allowed by "true" only', () => {
    expect(busSecurityOff({})).toBe(false);
    expect(busSecurityOff({ [BUS_SECURITY_OFF_BENCH_ONLY]: '1' })).toBe(false);
    expect(busSecurityOff({ [BUS_SECURITY_OFF_BENCH_ONLY]: 'true' })).toBe(true);
  });
});
