/**
 * Recognises "the database cannot be reached right now" among thrown errors, so the API answers
 * 503 (retry later) instead of 500 (our bug) while PostgreSQL is down or restarting; the pool opens
 * new connections by itself once it is back, so no restart is needed.
 */

// Connection-level errno codes and PostgreSQL SQLSTATEs of classes 08 (connection exception) and
// 57P (operator intervention: admin/crash shutdown, cannot connect now), plus SQLite's busy/locked.
const CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
]);

const MESSAGES = [
  /Connection terminated/i,
  /connection timeout/i,
  /Client has encountered a connection error/i,
  /the database system is (starting up|shutting down)/i,
];

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code === 'string' && (CODES.has(code) || code.startsWith('08'))) return true;
  if (error instanceof AggregateError && error.errors.some(isDatabaseUnavailable)) return true;
  return MESSAGES.some((pattern) => pattern.test(error.message));
}
