/**
 * One `warn` line per failed delivery attempt, so an operator reading the log sees a receiver failing
 * from its first failed attempt. It names the delivery, the subscription, the attempt number, what
 * failed (the HTTP status or the error class) and what happens next; never a secret, a header, a URL
 * or a body (a receiver's answer may echo anything).
 */
import { isoTime } from '../clock.js';
import type { AttemptRecord } from './queue/types.js';
import type { WorkerLogger } from './worker-options.js';

export interface FailedAttempt {
  deliveryId: string;
  subscriptionId: string;
  attempt: Pick<AttemptRecord, 'attemptNo' | 'statusCode' | 'errorClass'>;
  /** When the next automatic attempt is due; null when the delivery failed for good. */
  nextAttemptAt: number | null;
  /** `schedule` (the worker), `manual` ("Retry now", which leaves the schedule where it was) or `ping` (never retried). */
  trigger: 'schedule' | 'manual' | 'ping';
}

export function logFailedAttempt(logger: Pick<WorkerLogger, 'warn'>, failed: FailedAttempt): void {
  const { attempt } = failed;
  const what =
    attempt.statusCode !== null ? `HTTP ${String(attempt.statusCode)}` : (attempt.errorClass ?? 'unknown error');
  const next =
    failed.nextAttemptAt !== null
      ? isoTime(failed.nextAttemptAt)
      : failed.trigger === 'ping'
        ? 'none, a ping is one attempt'
        : 'none, the delivery failed';
  logger.warn(
    {
      deliveryId: failed.deliveryId,
      subscriptionId: failed.subscriptionId,
      attempt: attempt.attemptNo,
      statusCode: attempt.statusCode,
      errorClass: attempt.errorClass,
      nextAttemptAt: failed.nextAttemptAt === null ? null : isoTime(failed.nextAttemptAt),
      trigger: failed.trigger,
    },
    `delivery attempt ${String(attempt.attemptNo)} failed (${what}); next attempt: ${next}`,
  );
}
