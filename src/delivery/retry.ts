/**
 * What happens after an attempt. Only 2xx is success. Failures wait the configured schedule with
 * ±20% jitter (so receivers that fail together do not get retried together), then the delivery is
 * `failed`: visible and replayable. A receiver can ask for more time (Retry-After on 429/503) but
 * never for less; timeouts and 429 wait at least a minute. 410 Gone ends the subscription.
 */
import type { ErrorClass } from './model.js';
import type { SendResult } from './sender.js';

export const JITTER = 0.2;
export const MIN_BACKOFF_MS = 60_000;
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;
/** A subscription whose attempts have all failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600_000;

export type Decision =
  | { status: 'succeeded' }
  | { status: 'pending'; nextAttemptAt: number }
  | { status: 'failed'; disableReason?: string };

export interface DecideInput {
  /** 1 for the first attempt. */
  attemptNo: number;
  now: number;
  result: SendResult;
  scheduleSeconds: readonly number[];
  /** A number in [0, 1); injectable so tests are exact. */
  random: () => number;
}

export const isSuccess = (result: SendResult): boolean =>
  result.kind === 'response' && result.statusCode >= 200 && result.statusCode < 300;

export function errorClassOf(result: SendResult): ErrorClass | null {
  if (result.kind === 'error') return result.errorClass;
  return isSuccess(result) ? null : 'http';
}

export function decide(input: DecideInput): Decision {
  const { result, now } = input;
  if (isSuccess(result)) return { status: 'succeeded' };
  const statusCode = result.kind === 'response' ? result.statusCode : undefined;
  if (statusCode === 410) return { status: 'failed', disableReason: 'the receiver answered 410 Gone' };

  const base = input.scheduleSeconds[input.attemptNo - 1];
  if (base === undefined) return { status: 'failed' };
  let delay = base * 1000 * (1 + (input.random() * 2 - 1) * JITTER);
  if (statusCode === 429 || (result.kind === 'error' && result.errorClass === 'timeout'))
    delay = Math.max(delay, MIN_BACKOFF_MS);
  if (result.kind === 'response' && (statusCode === 429 || statusCode === 503)) {
    const asked = retryAfterMs(result.headers['retry-after'], now);
    if (asked !== undefined) delay = Math.max(delay, Math.min(asked, MAX_RETRY_AFTER_MS));
  }
  return { status: 'pending', nextAttemptAt: now + Math.round(delay) };
}

/** Retry-After as delta-seconds or an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
