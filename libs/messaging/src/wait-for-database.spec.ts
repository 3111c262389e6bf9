import { waitingForDatabase } from './wait-for-database';

const unreachable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('waitingForDatabase', () => {
  it('retries while the database is out of reach, then answers what the work answers', async () => {
    let calls = 0;
    const waits: number[] = [];
    const result = await waitingForDatabase(
      async () => {
        calls += 1;
        if (calls < 3) throw unreachable();
        return 'handled';
      },
      (_error, delay) => waits.push(delay),
    );
    expect(result).toBe('handled');
    expect(calls).toBe(3);
    expect(waits).toHaveLength(2);
  });

  it('leaves any other failure to the consumer at once', async () => {
    let calls = 0;
    const failing = waitingForDatabase(async () => {
      calls += 1;
      throw new Error('a bug in the handler');
    });
    await expect(failing).rejects.toThrow('a bug in the handler');
    expect(calls).toBe(1);
  });
});
