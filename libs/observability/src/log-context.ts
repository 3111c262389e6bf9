import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a log line written while handling one request or one event says about it. The
 * logger reads it on every line, so the fields are bound once where the work starts
 * instead of being passed to each call.
 */
export interface LogFields {
  /** The gateway's request id (X-Request-Id); for an event, its correlation id. */
  requestId?: string;
  /** The envelope's correlation id of the event being handled. */
  correlationId?: string;
  eventId?: string;
  eventType?: string;
  [field: string]: string | number | undefined;
}

const storage = new AsyncLocalStorage<LogFields>();

/** Runs `work` with `fields` added to the log context of everything it does, awaited work included. */
export function withLogContext<T>(fields: LogFields, work: () => T): T {
  const outer = storage.getStore();
  return storage.run(outer ? { ...outer, ...fields } : fields, work);
}

/** The fields bound around the code that is running now, if any. */
export function currentLogContext(): LogFields | undefined {
  return storage.getStore();
}
