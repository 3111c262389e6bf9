import { requestsPerOrder } from './broker-requests';

describe("the brokers' requests per decided order", () => {
  const before = { Fetch: 100, FetchConsumer: 40, FetchFollower: 60, Produce: 10, OffsetCommit: 5, Heartbeat: 7, Metadata: 3 };

  it('counts each kind between the two readings, a fetch once as a consumer’s or a follower’s', () => {
    const after = { Fetch: 400, FetchConsumer: 140, FetchFollower: 260, Produce: 60, OffsetCommit: 15, Heartbeat: 17, Metadata: 3, ApiVersions: 20 };
    expect(requestsPerOrder(before, after, 100)).toEqual({
      'consumer fetch': 1,
      'follower fetch': 2,
      produce: 0.5,
      'offset commit': 0.1,
      heartbeat: 0.1,
      other: 0.2,
    });
  });

  it('counts a kind the first reading did not have from zero, and leaves out a kind none of which were made', () => {
    expect(requestsPerOrder({ FetchFollower: 0 }, { FetchConsumer: 30, FetchFollower: 0, JoinGroup: 4 }, 10)).toEqual({ 'consumer fetch': 3, other: 0.4 });
  });

  it('has nothing per order when no order was decided', () => {
    expect(requestsPerOrder(before, before, 0)).toBeUndefined();
  });
});
