// For the scripts' own kafkajs clients (the bench floor, the chaos checks): the fix the
// services get from libs/kafka/src/request-queue-fix.ts, which says why.
'use strict';
const requestQueue = require('kafkajs/src/network/requestQueue');

const schedule = requestQueue.prototype.scheduleCheckPendingRequests;
if (!schedule.idleSafe) {
  const idleSafe = function () {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    schedule.call(this);
  };
  idleSafe.idleSafe = true;
  requestQueue.prototype.scheduleCheckPendingRequests = idleSafe;
}
