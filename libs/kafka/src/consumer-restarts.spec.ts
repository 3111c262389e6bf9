import { EventEmitter } from 'node:events';
import { ConsumerRestarts, type RestartableConsumer } from './consumer-restarts';

/**
 * A consumer with kafkajs's rules for runners: `run` starts one unless one runs already, `stop`
 * ends it, and a crash stops it before it is reported. Counts the runners alive at once.
 */
class StandInConsumer {
  readonly events = { CRASH: 'consumer.crash', GROUP_JOIN: 'consumer.group_join' } as RestartableConsumer['events'];
  private readonly emitter = new EventEmitter();
  runners = 0;
  mostRunnersAtOnce = 0;
  runs = 0;
  /** How long a run takes to start its runner (a group join). */
  startMs = 0;

  on = ((event: string, listener: (payload: unknown) => void) => this.emitter.on(event, listener)) as unknown as RestartableConsumer['on'];

  stop = async (): Promise<void> => {
    this.runners = 0;
  };

  connect = async (): Promise<void> => undefined;

  run = async (): Promise<void> => {
    if (this.runners > 0) return;
    this.runs += 1;
    if (this.startMs > 0) await new Promise((resolve) => setTimeout(resolve, this.startMs));
    this.runners += 1;
    this.mostRunnersAtOnce = Math.max(this.mostRunnersAtOnce, this.runners);
    this.emitter.emit(this.events.GROUP_JOIN, { payload: {} });
  };

  crash(message = 'Connection error: connect ECONNREFUSED'): void {
    this.runners = 0;
    this.emitter.emit(this.events.CRASH, { payload: { error: new Error(message), restart: false } });
  }
}

const quiet = { warn: () => undefined, error: () => undefined };

function restartsOf(consumer: StandInConsumer, beforeRun: () => void = () => undefined) {
  return new ConsumerRestarts(consumer as unknown as RestartableConsumer, {}, { groupId: 'g', logger: quiet, beforeRun });
}

describe('ConsumerRestarts', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('starts a crashed consumer again after half a second', async () => {
    const consumer = new StandInConsumer();
    restartsOf(consumer);
    await consumer.run();
    consumer.crash();
    await jest.advanceTimersByTimeAsync(499);
    expect(consumer.runners).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect([consumer.runners, consumer.runs]).toEqual([1, 2]);
  });

  it('makes one restart of a crash and a lost membership that come together, and one runner', async () => {
    const consumer = new StandInConsumer();
    const restarts = restartsOf(consumer);
    await consumer.run();
    restarts.membershipLost();
    consumer.crash();
    await jest.advanceTimersByTimeAsync(5_000);
    expect([consumer.runners, consumer.runs, consumer.mostRunnersAtOnce]).toEqual([1, 2, 1]);
  });

  it('does not lose a crash that comes while a restart is under way: one more restart follows, never two runners', async () => {
    const consumer = new StandInConsumer();
    const restarts = restartsOf(consumer);
    await consumer.run();
    consumer.startMs = 1_000;
    restarts.membershipLost();
    await jest.advanceTimersByTimeAsync(100);
    consumer.crash();
    await jest.advanceTimersByTimeAsync(5_000);
    expect([consumer.runners, consumer.runs, consumer.mostRunnersAtOnce]).toEqual([1, 3, 1]);
  });

  it('backs off between crashes in a row, and starts over once the consumer joined its group', async () => {
    const consumer = new StandInConsumer();
    restartsOf(consumer);
    const joiningRun = consumer.run;
    consumer.run = async () => {
      consumer.runs += 1;
      consumer.crash();
    };
    consumer.crash();
    const runsAt = async (ms: number) => {
      await jest.advanceTimersByTimeAsync(ms);
      return consumer.runs;
    };
    // Restarts 0.5, 1, 2 and again 2 s after the crashes before them.
    expect([await runsAt(500), await runsAt(999), await runsAt(1), await runsAt(1_999), await runsAt(1), await runsAt(1_999), await runsAt(1)]).toEqual([
      1, 1, 2, 2, 3, 3, 4,
    ]);
    // Once a run joins the group, the next crash is started again after half a second.
    consumer.run = joiningRun;
    await jest.advanceTimersByTimeAsync(2_000);
    consumer.crash();
    expect([await runsAt(499), await runsAt(1)]).toEqual([5, 6]);
  });

  it('drops what belonged to the previous runner before each new run', async () => {
    const consumer = new StandInConsumer();
    const order: string[] = [];
    const run = consumer.run;
    consumer.run = async () => {
      order.push('run');
      await run();
    };
    restartsOf(consumer, () => void order.push('forget'));
    consumer.crash();
    await jest.advanceTimersByTimeAsync(500);
    expect(order).toEqual(['forget', 'run']);
  });

  it('starts nothing once cancelled, and waits for a restart under way', async () => {
    const consumer = new StandInConsumer();
    const restarts = restartsOf(consumer);
    await consumer.run();
    consumer.crash();
    await restarts.cancel();
    await jest.advanceTimersByTimeAsync(20_000);
    expect([consumer.runners, consumer.runs]).toEqual([0, 1]);
  });
});
