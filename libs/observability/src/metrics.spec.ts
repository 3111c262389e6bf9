import { register } from 'prom-client';
import { ScrapedRead, rpcClientSeconds, rpcStatusOf, timeRpcCall } from './metrics';

const count = async (pattern: string, status: string): Promise<number> =>
  (await rpcClientSeconds.get()).values.find(
    (value) => value.metricName === 'petstore_rpc_client_duration_seconds_count' && value.labels['pattern'] === pattern && value.labels['status'] === status,
  )?.value ?? 0;

describe('timeRpcCall', () => {
  it('times a call by pattern and outcome, and answers as the call does', async () => {
    await expect(timeRpcCall('things.get', Promise.resolve(7))).resolves.toBe(7);
    const refusal = Object.assign(new Error('no such thing'), { code: 'PET_NOT_FOUND' });
    await expect(timeRpcCall('things.get', Promise.reject(refusal))).rejects.toBe(refusal);
    await expect(timeRpcCall('things.get', Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect([await count('things.get', 'ok'), await count('things.get', 'PET_NOT_FOUND'), await count('things.get', 'INTERNAL_ERROR')]).toEqual([1, 1, 1]);
    expect(register.getSingleMetric('petstore_rpc_client_duration_seconds')).toBe(rpcClientSeconds);
  });

  it('labels a failure with its error code only when it looks like one', () => {
    expect(rpcStatusOf({ code: 'UPSTREAM_TIMEOUT' })).toBe('UPSTREAM_TIMEOUT');
    expect(rpcStatusOf({ code: 'ECONNRESET' })).toBe('ECONNRESET');
    expect(rpcStatusOf({ code: 'free text, unbounded' })).toBe('INTERNAL_ERROR');
    expect(rpcStatusOf(undefined)).toBe('INTERNAL_ERROR');
  });
});

describe('ScrapedRead', () => {
  it('shares one read between calls within its interval, reads again after it, and answers undefined for a failure or no source', async () => {
    let reads = 0;
    let fail = false;
    const scraped = new ScrapedRead<number>(50);
    expect(await scraped.read()).toBeUndefined();
    scraped.answerWith(async () => {
      reads++;
      if (fail) throw new Error('database down');
      return reads;
    });
    expect([await scraped.read(), await scraped.read()]).toEqual([1, 1]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    fail = true;
    expect(await scraped.read()).toBeUndefined();
    expect(reads).toBe(2);
  });
});
