import { MembershipWatch } from './membership-watch';

const unknownMember = Object.assign(new Error('The coordinator is not aware of this member'), { type: 'UNKNOWN_MEMBER_ID' });

describe('MembershipWatch', () => {
  it('asks for a restart once commits have failed as an unknown member for longer than the grace', () => {
    const watch = new MembershipWatch(3000);
    expect([0, 1000, 2999, 3000].map((now) => watch.commitFailed(unknownMember, now))).toEqual([false, false, false, true]);
  });

  it('forgets the loss when the member joins again or a commit goes through', () => {
    const watch = new MembershipWatch(3000);
    watch.commitFailed(unknownMember, 0);
    watch.reset();
    expect(watch.commitFailed(unknownMember, 3500)).toBe(false);
    expect(watch.commitFailed(unknownMember, 6500)).toBe(true);
  });

  it('sees the error through the wrappers of kafkajs\'s retries', () => {
    const watch = new MembershipWatch(0);
    const wrapped = Object.assign(new Error('The coordinator is not aware of this member'), { name: 'KafkaJSNumberOfRetriesExceeded', cause: unknownMember });
    expect(watch.commitFailed(wrapped, 0)).toBe(true);
  });

  it('ignores every other failure: a broker that is down is kafkajs\'s own business', () => {
    const watch = new MembershipWatch(0);
    const down = Object.assign(new Error('Connection error: connect ECONNREFUSED'), { name: 'KafkaJSConnectionError' });
    const rebalancing = Object.assign(new Error('The group is rebalancing'), { type: 'REBALANCE_IN_PROGRESS' });
    expect([watch.commitFailed(down, 10_000), watch.commitFailed(rebalancing, 20_000)]).toEqual([false, false]);
  });
});
