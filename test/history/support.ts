/** Shared set-up of the history tests. */
import { addSubscription, emit } from '../delivery/support.js';
import { createClientWithToken, type Harness } from '../support/harness.js';

/** A shop's one subscription, to an address nobody answers, with `deliveries` pending for it: its id. */
export async function subscriptionWithPending(h: Harness, deliveries: number): Promise<string> {
  const shop = await createClientWithToken(h, 'Shop');
  const subscription = await addSubscription(h.database.db, shop.id, 'http://127.0.0.1:9/a', h.clock.now());
  await emit(h.database.db, h.clock.now(), deliveries);
  return subscription;
}
