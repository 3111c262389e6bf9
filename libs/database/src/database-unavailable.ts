/**
 * Socket errors and PostgreSQL states that mean the database could not be reached or dropped
 * the session: the work was not done (a transaction that loses its connection is rolled back)
 * and the same request can simply be sent again.
 */
const UNREACHABLE_CODES = new Set([
  // the socket (node:net, through pg)
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now (starting or stopping), too_many_connections
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/**
 * pg and knex say these in the message only (no code): a socket closed under a query, a pool that
 * cannot hand out a connection. MikroORM puts the query before the driver's message.
 */
const UNREACHABLE_MESSAGES = [
  /\bConnection terminated\b/,
  /Client has encountered a connection error and is not queryable/,
  /\bKnex: Timeout acquiring a connection\b/,
  /\btimeout exceeded when trying to connect\b/,
  // knex: the transaction ended under the query. With the services' sequential queries that
  // means its connection failed first (seen: BEGIN meeting "the database system is shutting
  // down" during a restart, the next query answered this instead of the cause).
  /\bTransaction query already complete\b/,
];

/**
 * Whether an error (or one of its causes) is the database being out of reach rather than a
 * bug: a request gets 503 SERVICE_UNAVAILABLE for it (API.md §4: not carried out, safe to
 * retry), and an event handler waits for the database instead of giving the event up.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const { code, name, message } = current as Error & { code?: unknown };
    if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) return true;
    if (name === 'KnexTimeoutError' || name === 'ConnectionException') return true;
    if (UNREACHABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
    current = current.cause;
  }
  return false;
}
