/*
 * A fix to kafkajs 2.2.4 (the last release): offset commits that follow the group coordinator.
 *
 * A consumer group's offset manager keeps the coordinator it was given when the group last
 * synced. When the coordinator moves (its broker stops or restarts, and the leadership of the
 * group's __consumer_offsets partition goes elsewhere), every commit still goes to the old
 * broker: it answers "not the correct coordinator", or the old node is gone from the metadata
 * ("Broker N not found"), or it refuses connections. kafkajs refreshes the metadata but never
 * asks who coordinates the group now, so commits fail until something makes the group rebalance
 * (kafkajs PR #1779). Measured: after three brokers were restarted in turn, a group's committed
 * offsets stayed 1,201 messages behind what it had handled, 30 s after the last restart. The
 * handled events were not lost (consumer positions live in each service's database), but the
 * lag alert fired and a restart would have read them all again.
 *
 * After a commit fails in one of those ways, the manager now asks the cluster for the group's
 * coordinator, and the next commit goes there. offset-commit-fix.spec.ts pins the kafkajs file
 * this was written against.
 */
'use strict';
const OffsetManager = require('kafkajs/src/consumer/offsetManager');

/** Whether a failed commit says the group's coordinator is somewhere else now. */
function coordinatorMoved(error) {
  return (
    error?.type === 'NOT_COORDINATOR_FOR_GROUP' ||
    error?.name === 'KafkaJSBrokerNotFound' ||
    error?.name === 'KafkaJSConnectionError' ||
    error?.name === 'KafkaJSConnectionClosedError'
  );
}

const { prototype } = OffsetManager;
const commitOffsets = prototype.commitOffsets;
if (!commitOffsets.petstoreFix) {
  prototype.commitOffsets = Object.assign(
    async function (offsets) {
      try {
        return await commitOffsets.call(this, offsets);
      } catch (error) {
        if (coordinatorMoved(error)) {
          // The commit's own error is what the caller reports; a lookup that fails keeps the old one for the next try.
          this.coordinator = await this.cluster.findGroupCoordinator({ groupId: this.groupId }).catch(() => this.coordinator);
        }
        throw error;
      }
    },
    { petstoreFix: true },
  );
}

module.exports = { coordinatorMoved };
