import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { KafkaJSConnectionError } from 'kafkajs';
const { coordinatorMoved } = require('./offset-commit-fix.cjs') as { coordinatorMoved(error: unknown): boolean };

/** kafkajs's own class: it takes its message, though kafkajs's type declarations give it no parameter. */
const { KafkaJSBrokerNotFound } = require('kafkajs/src/errors') as { KafkaJSBrokerNotFound: new (message: string) => Error };
/** kafkajs's error for a broker's error code, built by its protocol layer. */
const { createErrorFromCode: brokerSaid } = require('kafkajs/src/protocol/error') as { createErrorFromCode(code: number): Error };

describe('kafkajs offset commit fix', () => {
  it('looks the coordinator up again after the answers of a coordinator that moved', () => {
    expect(coordinatorMoved(brokerSaid(16))).toBe(true); // NOT_COORDINATOR_FOR_GROUP
    expect(coordinatorMoved(new KafkaJSBrokerNotFound('Broker 1 not found in the cached metadata'))).toBe(true);
    expect(coordinatorMoved(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED'))).toBe(true);
  });

  it('keeps the coordinator after any other failure', () => {
    expect(coordinatorMoved(brokerSaid(25))).toBe(false); // UNKNOWN_MEMBER_ID: the group's to rejoin (MembershipWatch)
    expect(coordinatorMoved(brokerSaid(27))).toBe(false); // REBALANCE_IN_PROGRESS
    expect(coordinatorMoved(new Error('anything else'))).toBe(false);
    expect(coordinatorMoved(undefined)).toBe(false);
  });

  /*
   * The fix wraps a method of kafkajs's private OffsetManager and sets its `coordinator` (see
   * offset-commit-fix.cjs). A new kafkajs must fail here before it runs with a patch written for
   * other code: re-read the file, adapt or drop the fix (kafkajs PR #1779), then update the figure.
   */
  it('patches the kafkajs file it was written against (kafkajs 2.2.4)', () => {
    const file = require.resolve('kafkajs/src/consumer/offsetManager/index.js');
    expect({
      kafkajs: (require('kafkajs/package.json') as { version: string }).version,
      offsetManager: createHash('sha256').update(readFileSync(file)).digest('hex'),
    }).toEqual({
      kafkajs: '2.2.4',
      offsetManager: 'bd1041968ae322324ebf64d2569308db19d24f70ee5dbb72c964b43bfe85c00e',
    });
    const OffsetManager = require('kafkajs/src/consumer/offsetManager') as { prototype: Record<string, { petstoreFix?: boolean }> };
    expect(OffsetManager.prototype.commitOffsets.petstoreFix).toBe(true);
  });
});
