/**
 * Cancelling what is still to be sent to a revoked client: its pending deliveries end as `cancelled`,
 * kept in the log with their attempts. A delivery leased by a worker is mid-attempt: its worker records
 * the answer, and a retry that answer would schedule is cancelled then (complete-failed.ts), or at its
 * claim (abandon.ts) when the worker died first.
 */
import type { Executor } from './types.js';

/** Statuses a delivery ends in unsent: cancelled when its subscription was revoked, failed otherwise. */
export const unsentStatus = (subscriptionStatus: string): 'cancelled' | 'failed' =>
  subscriptionStatus === 'revoked' ? 'cancelled' : 'failed';

/** Cancels the unleased pending deliveries of these subscriptions; returns how many. */
export async function cancelPending(trx: Executor, subscriptionIds: readonly string[], now: number): Promise<number> {
  if (subscriptionIds.length === 0) return 0;
  const result = await trx
    .updateTable('deliveries')
    .set({ status: 'cancelled', lease_owner: null, lease_until: null, updated_at: now, completed_at: now })
    .where('subscription_id', 'in', subscriptionIds)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** After a failed attempt was recorded as a retry: cancelled instead when its subscription was revoked meanwhile. */
export async function cancelIfRevoked(
  trx: Executor,
  id: string,
  subscriptionId: string,
  now: number,
): Promise<boolean> {
  const revoked = await trx
    .selectFrom('subscriptions')
    .select('id')
    .where('id', '=', subscriptionId)
    .where('status', '=', 'revoked')
    .executeTakeFirst();
  if (revoked === undefined) return false;
  await trx
    .updateTable('deliveries')
    .set({ status: 'cancelled', updated_at: now, completed_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
  return true;
}
