/**
 * Subscribers told before they are cut off. After a failed delivery attempt is recorded, and inside
 * the same transaction, this decides whether the subscription has now been failing long enough to
 * announce `subscription.failing` (once per failing period), or was just disabled (`subscription.
 * disabled`: 5 days of failures or a 410 Gone). The event goes through the outbox to the same client's
 * other subscriptions to it — never to the subscription it is about, whose receiver is the one failing.
 */
import type { Dialect, Executor } from '../db/database.js';
import type { DomainEvent } from '../events/catalogue.js';
import { events } from '../events/emitters.js';
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
export async function announceHealth(trx: Executor, dialect: Dialect, completion: FailedCompletion): Promise<number> {
  const { subscriptionId, now, noticeCutoff } = completion;
  const store = new HealthStore(trx);
  let event: DomainEvent;
  if (completion.disabled) event = events.subscriptionDisabled(subscriptionId);
  else if (noticeCutoff !== undefined && (await store.markFailingNoticed(subscriptionId, now, noticeCutoff)))
    event = events.subscriptionFailing(subscriptionId);
  else return 0;
  return recordEventFor(trx, dialect, now, event, await store.audience(subscriptionId, event.name));
}
