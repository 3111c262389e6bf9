/*
 * kafkajs 2.2.4 (the last release) re-arms a timer on every broker connection whenever its
 * request queue is checked, also when nothing is queued; the timer's delay is then negative,
 * so Node runs it after 1 ms, forever: a busy loop per connection that costs an idle service
 * several % of a core (and Node 24 warns TimeoutNegativeWarning). See tulios/kafkajs#1556 and
 * #1704. The check is only needed while requests wait, which is when kafkajs queues them and
 * calls it anyway; so it is skipped when none wait and no throttling is in force. Patched once,
 * when this module loads (before any client exists).
 */
interface RequestQueue {
  pending: unknown[];
  throttledUntil: number;
  scheduleCheckPendingRequests(): void;
}

const requestQueue = require('kafkajs/src/network/requestQueue') as { prototype: RequestQueue };
const schedule = requestQueue.prototype.scheduleCheckPendingRequests;
if (typeof schedule === 'function' && !(schedule as { idleSafe?: boolean }).idleSafe) {
  const idleSafe = function (this: RequestQueue): void {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    schedule.call(this);
  };
  Object.assign(idleSafe, { idleSafe: true });
  requestQueue.prototype.scheduleCheckPendingRequests = idleSafe;
}

export {};
