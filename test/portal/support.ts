/** What the portal's tests set up alike. */
import { addSubscription, emit } from '../delivery/support.js';
import type { Harness } from '../support/harness.js';

/**
 * A list.updated subscription of client `clientId` at `url` and one event emitted to it: the
 * subscription's id and its delivery's.
 */
export async function subscriptionWithDelivery(
  h: Harness,
  clientId: string,
  url: string,
): Promise<{ subscription: string; delivery: string }> {
  const subscription = await addSubscription(h.database.db, clientId, url, h.clock.now(), 'list.updated');
  await emit(h.database.db, h.clock.now());
  const { id } = await h.database.db.kysely
    .selectFrom('deliveries')
    .select('id')
    .where('subscription_id', '=', subscription)
    .executeTakeFirstOrThrow();
  return { subscription, delivery: id };
}
