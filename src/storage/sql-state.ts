/** An error and the errors it wraps (Drizzle puts the driver error in `cause`), at most 4 deep. */
export function* causesOf(error: unknown): Generator<{ code?: unknown; message?: unknown; constraint?: unknown }> {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth += 1) {
    yield e as { code?: unknown; message?: unknown; constraint?: unknown };
  }
}

/** SQLSTATE of a driver error, looking through wrappers. */
export function sqlStateOf(error: unknown): string | null {
  for (const { code } of causesOf(error)) {
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}

/** Socket errors of a database that cannot be reached (Node's codes). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN']);
/**
 * SQLSTATEs of a server that is not taking work now, whatever the statement: connection
 * exceptions (08), insufficient resources (53: disk full, out of memory, no free connection),
 * shutdown, start-up or a dropped database (57P01..04), refused credentials (28: a rotated
 * password) and a database that does not exist (3D000).
 */
const UNAVAILABLE_STATE = /^08|^53|^57P0[1-4]$|^28|^3D000$/;
/** The pg pool's own words for a lost connection or a connect timeout; the server's for a database closed to connections (55000). */
const UNAVAILABLE_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|is not currently accepting connections/i;

/** SQLSTATEs of a database that takes no writes: disk full (53100), read-only (25006), an I/O error (58030). */
const WRITE_REFUSED_STATE = /^53100$|^25006$|^58030$/;
/** The same said by a file system (PGlite writes its files itself). */
const WRITE_REFUSED_MESSAGE = /No space left on device|ENOSPC|read-only file system|EROFS/i;

/**
 * True when a driver error says the database refuses writes as such (a full disk, a read-only
 * volume) — not a timeout, a failover or a refused row, which pass or blame one statement.
 */
export function isWriteRefusal(error: unknown): boolean {
  for (const { code, message } of causesOf(error)) {
    if (typeof code === 'string' && (WRITE_REFUSED_STATE.test(code) || code === 'ENOSPC' || code === 'EROFS')) return true;
    if (typeof message === 'string' && WRITE_REFUSED_MESSAGE.test(message)) return true;
  }
  return false;
}

/**
 * True when a driver error says the database cannot be reached now — not that the statement
 * was wrong: a request failing so is worth retrying (503), not a bug (500).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const { code, message } of causesOf(error)) {
    if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_STATE.test(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  }
  return false;
}

/** The innermost message of a driver error and its code, e.g. `connect ECONNREFUSED 127.0.0.1:5432 (ECONNREFUSED)`. */
export function driverReason(error: unknown): string {
  let reason = error instanceof Error ? error.message : String(error);
  let code: string | null = null;
  for (const { code: c, message } of causesOf(error)) {
    if (typeof message === 'string' && message.length > 0) reason = message;
    if (typeof c === 'string') code = c;
  }
  return code && !reason.includes(code) ? `${reason} (${code})` : reason;
}
