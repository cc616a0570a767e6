import { describe, expect, it } from 'vitest';
import { decide, retryAfterMs } from '../../src/delivery/retry.js';
import type { SendResult } from '../../src/delivery/sender.js';

const schedule = [5, 300, 1800];
const now = Date.UTC(2026, 8, 1);
const response = (statusCode: number, headers: Record<string, string> = {}): SendResult => ({
  kind: 'response',
  statusCode,
  headers,
  bodySnippet: '',
});
const error = (errorClass: 'timeout' | 'dns' | 'connect' | 'tls' | 'blocked'): SendResult => ({
  kind: 'error',
  errorClass,
  message: errorClass,
});
const at = (attemptNo: number, result: SendResult, random = 0.5) =>
  decide({ attemptNo, now, result, scheduleSeconds: schedule, random: () => random });

describe('retry decisions', () => {
  it('only 2xx succeeds; 3xx, 4xx and 5xx are retried on the schedule', () => {
    expect(at(1, response(200))).toEqual({ status: 'succeeded' });
    expect(at(1, response(204))).toEqual({ status: 'succeeded' });
    for (const code of [302, 400, 500])
      expect(at(1, response(code))).toEqual({ status: 'pending', nextAttemptAt: now + 5000 });
    expect(at(2, error('connect'))).toEqual({ status: 'pending', nextAttemptAt: now + 300_000 });
  });

  it('jitter stays within ±20%', () => {
    expect(at(3, response(500), 0)).toEqual({ status: 'pending', nextAttemptAt: now + 1_440_000 });
    expect(at(3, response(500), 0.999999)).toEqual({ status: 'pending', nextAttemptAt: now + 2_159_999 });
  });

  it('after the last scheduled retry the delivery fails', () => {
    expect(at(4, response(500))).toEqual({ status: 'failed' });
  });

  it('410 Gone fails at once and disables the subscription', () => {
    expect(at(1, response(410))).toEqual({ status: 'failed', disableReason: 'the receiver answered 410 Gone' });
  });

  it('timeouts and 429 wait at least a minute', () => {
    expect(at(1, error('timeout'))).toEqual({ status: 'pending', nextAttemptAt: now + 60_000 });
    expect(at(1, response(429))).toEqual({ status: 'pending', nextAttemptAt: now + 60_000 });
  });

  it('Retry-After on 429/503 can only delay, and at most a day', () => {
    expect(at(1, response(503, { 'retry-after': '120' }))).toEqual({ status: 'pending', nextAttemptAt: now + 120_000 });
    expect(at(3, response(503, { 'retry-after': '1' }))).toEqual({ status: 'pending', nextAttemptAt: now + 1_800_000 });
    expect(at(1, response(429, { 'retry-after': '999999' }))).toEqual({
      status: 'pending',
      nextAttemptAt: now + 24 * 3600_000,
    });
    expect(at(1, response(500, { 'retry-after': '120' }))).toEqual({ status: 'pending', nextAttemptAt: now + 5000 });
    const date = new Date(now + 600_000).toUTCString();
    expect(at(1, response(503, { 'retry-after': date }))).toEqual({ status: 'pending', nextAttemptAt: now + 600_000 });
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('30', now)).toBe(30_000);
    expect(retryAfterMs(['7'], now)).toBe(7000);
    expect(retryAfterMs(new Date(now - 1000).toUTCString(), now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
