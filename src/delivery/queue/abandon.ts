/** Ending a claimed delivery without sending it. */
import type { Executor } from './types.js';

/** Marks a claimed delivery failed unsent (its subscription is no longer active); false when the lease was lost. */
export async function abandon(db: Executor, id: string, owner: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('deliveries')
    .set({ status: 'failed', lease_owner: null, lease_until: null, updated_at: now, completed_at: now })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
