/**
 * Subscribers told before they are cut off. After a failed delivery attempt is recorded, and inside
 * the same transaction, this decides whether the subscription has now been failing long enough to
 * announce `subscription.failing` (once per failing period), or was just disabled (`subscription.
 * disabled`: 5 days of failures or a 410 Gone). The event goes through the outbox to the same client's
 * other subscriptions to it — never to the subscription it is about, whose receiver is the one failing.
 */
import type { Executor } from '../db/database.js';
import type { EventName } from '../events/catalogue.js';
import { recordEventFor } from '../events/outbox.js';
import { HealthStore } from './subscription-health-store.js';

export interface FailedCompletion {
  subscriptionId: string;
  now: number;
  /** The completion disabled the subscription (it was active before). */
  disabled: boolean;
  /** Announce failing when the subscription has been failing since at or before this instant. */
  noticeCutoff?: number | undefined;
}

/** Writes subscription.failing or .disabled when due; returns the deliveries it created. */
export async function announceHealth(trx: Executor, completion: FailedCompletion): Promise<number> {
  const { subscriptionId, now, noticeCutoff } = completion;
  const store = new HealthStore(trx);
  let name: EventName;
  if (completion.disabled) name = 'subscription.disabled';
  else if (noticeCutoff !== undefined && (await store.markFailingNoticed(subscriptionId, now, noticeCutoff)))
    name = 'subscription.failing';
  else return 0;
  const audience = await store.audience(subscriptionId, name);
  const type = name === 'subscription.disabled' ? 'disabled' : 'failing';
  return recordEventFor(trx, now, { name, type, resource: 'subscription', identifier: subscriptionId }, audience);
}
