// Requests over NATS the way libs/rpc's NatsRpcClient sends them, for the bench's own callers (the
// RPC load, the saga floor's front): every answer on the connection's one wildcard inbox, matched
// by a token, and the requests of one event-loop turn published together. Not nats.js's
// `request`, which makes a timer and an Error per call: a floor must not pay what the stack does not.
import { createInbox, type NatsConnection } from 'nats';

/** Sends `data` to `subject` and answers the reply's bytes. */
export type NatsRequest = (subject: string, data: Uint8Array) => Promise<Uint8Array>;

export function natsRequests(connection: NatsConnection, inboxPrefix: string): NatsRequest {
  const inbox = createInbox(inboxPrefix);
  const waiting = new Map<string, (data: Uint8Array) => void>();
  let outgoing: { subject: string; data: Uint8Array; reply: string }[] = [];
  let nextToken = 0;
  connection.subscribe(`${inbox}.*`, {
    callback: (_error, message) => {
      const token = message.subject.slice(inbox.length + 1);
      const answered = waiting.get(token);
      waiting.delete(token);
      answered?.(message.data);
    },
  });
  return (subject, data) => {
    const token = String(nextToken++);
    const reply = new Promise<Uint8Array>((resolve) => waiting.set(token, resolve));
    if (outgoing.push({ subject, data, reply: `${inbox}.${token}` }) === 1) {
      setImmediate(() => {
        for (const message of outgoing) connection.publish(message.subject, message.data, { reply: message.reply });
        outgoing = [];
      });
    }
    return reply;
  };
}
