import { api } from '../support/stack';

describe('health through the gateway', () => {
  it('is live and ready with every service up', async () => {
    const live = await api('GET', '/health/live', { headers: { authorization: undefined } });
    expect(live.status).toBe(200);

    const ready = await api('GET', '/health/ready', { headers: { authorization: undefined } });
    expect(ready.status).toBe(200);
    expect(JSON.stringify(ready.body)).toMatch(/catalog/);
  });
});
