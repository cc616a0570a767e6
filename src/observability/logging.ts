/**
 * How the service logs: credentials redacted, errors by class and frame, lines written through a
 * bounded asynchronous buffer.
 */
import pino from 'pino';
import type { Metrics } from './metrics.js';

/** Never let credentials reach a log line. */
export const LOG_REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.clientSecret',
  '*.client_secret',
  '*.webhookSecret',
  '*.access_token',
];

/**
 * Errors are logged by class, code, message and the one frame that threw, never with a whole stack
 * trace (the rule: no stack traces in a log line). The instance id in the problem body finds
 * the line; the code and message say what failed.
 */
export function logError(error: Error): { type: string; message: string; stack: string; code?: string } {
  const code =
    'code' in error && (typeof error.code === 'string' || typeof error.code === 'number')
      ? String(error.code)
      : undefined;
  // Only the frame that threw (file and line), which is enough to find the code.
  const where = /\n\s+at (.*)/.exec(error.stack ?? '')?.[1] ?? '';
  return { type: error.name, message: error.message, stack: where, ...(code === undefined ? {} : { code }) };
}

/** The logger's settings, the app's and a worker-only process's alike: credentials redacted, errors by class. */
export function loggerOptions(level: string): pino.LoggerOptions {
  return { level, redact: { paths: LOG_REDACT, censor: '[redacted]' }, serializers: { err: logError } };
}

/** Above this much unwritten log text, new lines are dropped (and counted) instead of buffered. */
const LOG_BUFFER_LIMIT = 16 * 1024 * 1024;

/**
 * Log lines leave through a buffered asynchronous writer (flushed on exit), so a busy API does not pay
 * a write system call per line. The buffer is bounded: when stdout cannot keep up, lines are dropped
 * and counted in shelfmark_log_lines_dropped_total rather than growing the process without limit.
 */
export function logDestination(metrics: Metrics): pino.DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, maxLength: LOG_BUFFER_LIMIT });
  destination.on('drop', () => metrics.logLinesDropped.inc());
  return destination;
}
