/** Ending a claimed delivery without sending it. */
import { addStats } from '../stats.js';
import type { Executor } from './types.js';

/** Marks a claimed delivery failed unsent (its subscription is no longer active); false when the lease was lost. */
export async function abandon(db: Executor, id: string, owner: string, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('deliveries')
      .set({ status: 'failed', lease_owner: null, lease_until: null, updated_at: now, completed_at: now })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .returning('subscription_id')
      .executeTakeFirst();
    if (row === undefined) return false;
    // A failed delivery, but no attempt: the subscription's run of failed attempts is unchanged.
    await addStats(trx, now, { failed: 1 });
    return true;
  });
}
