/*
 * Two fixes to kafkajs 2.2.4 (the last release), each a wake-up an idle process paid for on
 * every broker connection. Patched once, when this module loads (before any client exists).
 * The services load it with libs/kafka; the tools' own kafkajs clients (the bench's saga
 * floor, the chaos checks) take kafkajs from libs/kafka too (kafkajs.ts), so both sides of a
 * comparison run the same kafkajs.
 *
 * 1. kafkajs re-arms a timer whenever a connection's request queue is checked, also when
 *    nothing is queued; the timer's delay is then negative, so Node runs it after 1 ms, forever:
 *    a busy loop per connection that costs an idle service several % of a core (and Node 24
 *    warns TimeoutNegativeWarning). See tulios/kafkajs#1556 and #1704. The check is only needed
 *    while requests wait, which is when kafkajs queues them and calls it anyway; so it is
 *    skipped when none wait and no throttling is in force.
 * 2. kafkajs looks for timed-out requests every 100 ms on every connection, whatever the
 *    request timeout: ten wake-ups a second per connection, most of an idle consumer's (an idle
 *    consumer's event loop woke 44 times a second; 11 with this check once a second). It now runs
 *    a tenth of the request timeout apart, at most a second: a request that gets no answer still
 *    fails, at most that much after its timeout.
 *
 * kafkajs offers no public hook for either timer, so this replaces two methods of its private
 * RequestQueue. request-queue-fix.spec.ts pins the kafkajs version and the two source files
 * this was written against, and fails on any other: re-read them before adapting (or dropping)
 * the fix.
 */
'use strict';
const { prototype } = require('kafkajs/src/network/requestQueue');

/** How often a connection looks for requests past their timeout: 100 ms at least, a second at most. */
function requestTimeoutCheckMs(requestTimeout) {
  return Math.min(Math.max(requestTimeout / 10, 100), 1000);
}

const schedulePending = prototype.scheduleCheckPendingRequests;
if (!schedulePending.petstoreFix) {
  prototype.scheduleCheckPendingRequests = Object.assign(
    function () {
      if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
      schedulePending.call(this);
    },
    { petstoreFix: true },
  );
}

if (!prototype.scheduleRequestTimeoutCheck.petstoreFix) {
  // kafkajs's own check on that interval (destroy() clears it, as it did).
  prototype.scheduleRequestTimeoutCheck = Object.assign(
    function () {
      if (!this.enforceRequestTimeout) return;
      this.destroy();
      this.requestTimeoutIntervalId = setInterval(() => {
        for (const request of this.inflight.values()) {
          if (Date.now() - request.sentAt > request.requestTimeout) request.timeoutRequest();
        }
        if (!this.isConnected()) this.destroy();
      }, requestTimeoutCheckMs(this.requestTimeout));
    },
    { petstoreFix: true },
  );
}

module.exports = { requestTimeoutCheckMs };
