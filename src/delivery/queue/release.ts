/** Giving leased deliveries back unsent. */
import type { Executor } from './types.js';

/** Clears the leases of pending deliveries this owner still holds (worker stopping, or a queued lease that ran short). */
export async function release(db: Executor, ids: readonly string[], owner: string, now: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('deliveries')
    .set({ lease_owner: null, lease_until: null, updated_at: now })
    .where('id', 'in', ids)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .execute();
}
