/**
 * Recording a failed attempt: the delivery is scheduled for its retry (status pending) or has failed
 * for good, the subscription's failing streak starts, and a subscription failing for long enough (or
 * answered 410 Gone) is disabled with its remaining deliveries failed; the client's other
 * subscriptions hear of it (delivery/subscription-health.ts).
 */
import type { Change } from '../../changes/unit-of-work.js';
import type { Dialect } from '../../db/database.js';
import { addConsecutiveFailures, addStats } from '../stats.js';
import { announceHealth } from '../subscription-health.js';
import { cancelIfRevoked } from './cancel.js';
import { attemptRow, type Completion, type CompletionResult, type Executor, NOT_RECORDED } from './types.js';

/** One failed completion, inside the caller's change (`record`: its audit record of a disabling). */
export async function completeFailed(
  trx: Executor,
  dialect: Dialect,
  input: Completion,
  record: Change['record'],
): Promise<CompletionResult> {
  const { id, owner, now, attempt } = input;
  const updated = await trx
    .updateTable('deliveries')
    .set({
      status: input.status,
      attempt_count: attempt.attemptNo,
      next_attempt_at: input.nextAttemptAt,
      lease_owner: null,
      lease_until: null,
      last_status_code: attempt.statusCode,
      last_error_class: attempt.errorClass,
      updated_at: now,
      completed_at: input.status === 'pending' ? null : now,
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return NOT_RECORDED;

  await trx.insertInto('delivery_attempts').values(attemptRow(input)).execute();
  // The client was revoked while this attempt was under way: its answer is kept, no retry is sent.
  if (input.status === 'pending' && (await cancelIfRevoked(trx, id, input.subscriptionId, now))) {
    await addStats(trx, now, { attemptsFailed: 1 });
    return { recorded: true, failed: 0, subscriptionDisabled: false };
  }

  let failed = input.status === 'failed' ? 1 : 0;
  await trx
    .updateTable('subscriptions')
    .set({ failing_since: now, updated_at: now })
    .where('id', '=', input.subscriptionId)
    .where('failing_since', 'is', null)
    .execute();
  const reason = input.disableReason ?? 'every delivery attempt failed for 5 days';
  let disable = trx
    .updateTable('subscriptions')
    .set({ status: 'disabled', disabled_reason: reason, updated_at: now })
    .where('id', '=', input.subscriptionId)
    .where('status', '=', 'active');
  if (input.disableReason === undefined) disable = disable.where('failing_since', '<=', input.failingCutoff);
  const disabled = Number((await disable.executeTakeFirst()).numUpdatedRows) > 0;
  if (disabled) failed += await failPendingOf(trx, input.subscriptionId, now);
  await addStats(trx, now, { attemptsFailed: 1, failed });
  // The subscription's health counts failed attempts from the first one (a success resets it).
  await addConsecutiveFailures(trx, input.subscriptionId, 1);
  const { subscriptionId, noticeCutoff } = input;
  await announceHealth(trx, dialect, { subscriptionId, now, disabled, noticeCutoff }); // subscription.failing / .disabled
  if (disabled)
    record('subscription.disabled', subscriptionId, {
      status: { before: 'active', after: 'disabled' },
      disabledReason: { before: null, after: reason },
    });
  return { recorded: true, failed, subscriptionDisabled: disabled };
}

/**
 * Fails the pending deliveries of a disabled subscription so they show up as failed (and can be
 * recovered) instead of waiting hours for their next retry. Rows leased by another worker are left
 * to that worker, whose completion then sees the disabled subscription on its next claim.
 */
async function failPendingOf(trx: Executor, subscriptionId: string, now: number): Promise<number> {
  const result = await trx
    .updateTable('deliveries')
    .set({ status: 'failed', updated_at: now, completed_at: now })
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
