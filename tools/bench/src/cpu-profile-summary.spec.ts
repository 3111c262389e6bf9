import { packageOf, selfTime } from './cpu-profile-summary';

describe('CPU profile summary', () => {
  it('names the package a frame belongs to', () => {
    expect(packageOf('')).toBe('(engine)');
    expect(packageOf('node:internal/streams')).toBe('node:internal');
    expect(packageOf('file:///w/node_modules/@nestjs/core/router.js')).toBe('@nestjs/core');
    expect(packageOf('file:///w/node_modules/pg/lib/client.js')).toBe('pg');
    expect(packageOf('file:///w/dist/apps/gateway/main.js')).toBe('(app bundle)');
  });

  it('counts each sample until the next one as self time, leaving idle out and the early samples when asked', () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(idle)', '') },
        { id: 2, callFrame: frame('query', 'file:///w/node_modules/pg/lib/client.js') },
        { id: 3, callFrame: frame('handle', 'file:///w/dist/apps/gateway/main.js') },
      ],
      startTime: 0,
      endTime: 10_000,
      samples: [2, 3, 1, 2],
      timeDeltas: [0, 4000, 2000, 3000],
    };
    const all = selfTime(profile);
    expect(all.total).toBe(6);
    expect([...all.byPackage]).toEqual([['pg', 4], ['(app bundle)', 2]]);
    expect(selfTime(profile, 5000).total).toBe(0);
  });
});
