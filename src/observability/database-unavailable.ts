/** Seconds a client is asked to wait while the database is unreachable: it comes back in about a second. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

// Node's socket errors when the server is not there (or went away).
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

// SQLSTATE: class 08 connection exception; 57P01-57P03 shutdown / cannot connect now; 53300 too many connections.
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;

// node-postgres says these in messages only (no code).
const PG_MESSAGES = [/connection terminated/i, /timeout exceeded when trying to connect/i, /client has encountered a connection error/i, /connection is not queryable/i];

// SQLite: the file stayed locked by another process past busy_timeout, or the connection was
// closed under the request (the process is shutting down): both pass if retried elsewhere or later.
const SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT']);
const SQLITE_CLOSED = /^The database connection is not open$/;

/**
 * Whether `err` says the database cannot be reached (not that a query was wrong): the
 * request may succeed if retried shortly, so it is a 503, not a 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
    if (typeof code === 'string' && SQLITE_CODES.has(code)) return true;
    if (PG_MESSAGES.some((m) => m.test(e.message)) || SQLITE_CLOSED.test(e.message)) return true;
    // An AggregateError (several addresses refused, e.g. localhost as ::1 and 127.0.0.1).
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
  }
  return false;
}
