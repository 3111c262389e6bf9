import { chaosOptions } from './options';
import { chooseScenarios, faultOf, type Scenario } from './scenario';

describe('chaosOptions', () => {
  it('runs everything, for 45 minutes at most, at 20 orders/s by default', () => {
    expect(chaosOptions([], {})).toEqual({ short: false, onlyCluster: false, withCluster: true, only: undefined, rate: 20, runLimitMinutes: 45 });
  });
  it('stops a short run after 18 minutes', () => {
    expect(chaosOptions(['--short'], {})).toMatchObject({ short: true, runLimitMinutes: 18 });
  });
  it('takes one stack, a part of a name and a rate', () => {
    expect(chaosOptions(['--cluster'], { CHAOS_ONLY: 'broker', CHAOS_RATE: '5' })).toMatchObject({ onlyCluster: true, withCluster: true, only: 'broker', rate: 5 });
    expect(chaosOptions(['--single'], {})).toMatchObject({ onlyCluster: false, withCluster: false });
  });
});

describe('the scenarios of a run', () => {
  const full = async () => ({ note: 'full' });
  const gentle = async () => ({ note: 'gentle' });
  const scenarios: Scenario[] = [
    { name: 'control', guarantees: '', fault: full, short: true },
    { name: 'broker killed five times', guarantees: '', fault: full, short: true, shortName: 'broker killed twice', shortFault: gentle },
    { name: 'PostgreSQL restarted', guarantees: '', fault: full },
  ];

  it('are all of them in a full run, under their names', () => {
    expect(chooseScenarios(scenarios, { short: false }).map((s) => s.name)).toEqual(['control', 'broker killed five times', 'PostgreSQL restarted']);
  });
  it('are the short ones in a short run, under their short names', () => {
    expect(chooseScenarios(scenarios, { short: true }).map((s) => s.name)).toEqual(['control', 'broker killed twice']);
  });
  it('are those whose name contains CHAOS_ONLY', () => {
    expect(chooseScenarios(scenarios, { short: false, only: 'broker' }).map((s) => s.name)).toEqual(['broker killed five times']);
  });
  it('apply the gentler fault in a short run only', () => {
    expect(faultOf(scenarios[1], true)).toBe(gentle);
    expect(faultOf(scenarios[1], false)).toBe(full);
    expect(faultOf(scenarios[0], true)).toBe(full);
  });
});
