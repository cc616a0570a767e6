/** Ending a claimed delivery without sending it. */
import { addConsecutiveFailures, addStats } from '../stats.js';
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
    await addStats(trx, now, { failed: 1 });
    await addConsecutiveFailures(trx, row.subscription_id, 1);
    return true;
  });
}
