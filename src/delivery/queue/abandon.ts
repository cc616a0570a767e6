/** Ending a claimed delivery without sending it. */
import { addStats } from '../stats.js';
import { unsentStatus } from './cancel.js';
import type { Executor } from './types.js';

/**
 * Ends a claimed delivery unsent (its subscription is no longer active): cancelled when the
 * subscription was revoked, failed otherwise. True when it ended failed (a failure to count); false
 * when it was cancelled or the lease was lost.
 */
export async function abandon(db: Executor, id: string, owner: string, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const subscription = await trx
      .selectFrom('deliveries')
      .innerJoin('subscriptions', 'subscriptions.id', 'deliveries.subscription_id')
      .select('subscriptions.status')
      .where('deliveries.id', '=', id)
      .executeTakeFirst();
    const status = unsentStatus(subscription?.status ?? 'disabled');
    const row = await trx
      .updateTable('deliveries')
      .set({ status, lease_owner: null, lease_until: null, updated_at: now, completed_at: now })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .returning('subscription_id')
      .executeTakeFirst();
    if (row === undefined) return false;
    // A failed delivery, but no attempt: the subscription's run of failed attempts is unchanged.
    if (status === 'failed') await addStats(trx, now, { failed: 1 });
    return status === 'failed';
  });
}
