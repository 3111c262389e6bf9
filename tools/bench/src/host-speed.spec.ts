import { hostSpread, hostSpreadText, probeHostMs, withHostProbe } from './host-speed';

describe("the host's probe", () => {
  it('reads a time for its fixed work each time it is taken', () => {
    const [first, second] = [probeHostMs(), probeHostMs()];
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(0);
  });

  it("puts a probe on each side of a run's result", async () => {
    const result = await withHostProbe(async () => ({ decided: 3 }));
    expect(result.decided).toBe(3);
    expect(result.hostProbeMs.before).toBeGreaterThan(0);
    expect(result.hostProbeMs.after).toBeGreaterThan(0);
  });

  it('spreads from the fastest probe to the slowest across every run, before and after alike', () => {
    const spread = hostSpread([{ hostProbeMs: { before: 20, after: 21 } }, undefined, {}, { hostProbeMs: { before: 30, after: 22 } }]);
    expect(spread).toEqual({ fastestMs: 20, slowestMs: 30, moved: 0.5 });
  });

  it('has no spread for runs that were not probed', () => {
    expect(hostSpread([{}, undefined])).toBeUndefined();
    expect(hostSpreadText(undefined)).toBe('');
  });

  it('marks a spread over 25 % and shows a smaller one plainly', () => {
    expect(hostSpreadText({ fastestMs: 20, slowestMs: 26, moved: 0.3 })).toBe('20–26 ms: **moved 30 %**');
    expect(hostSpreadText({ fastestMs: 20, slowestMs: 24, moved: 0.2 })).toBe('20–24 ms (20 %)');
    expect(hostSpreadText({ fastestMs: 20, slowestMs: 21.2, moved: 0.06 })).toBe('20–21.2 ms (6 %)');
    expect(hostSpreadText({ fastestMs: 20, slowestMs: 20, moved: 0 })).toBe('20 ms (0 %)');
  });
});
