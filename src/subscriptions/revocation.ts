/**
 * What revoking a client ends of its webhooks, inside the revoke's transaction: every subscription
 * is revoked for good (fan-out never matches it again, nothing re-enables it) and every delivery
 * still waiting is cancelled, so nothing more is sent to the client from any node.
 */
import type { Executor } from '../db/database.js';
import { cancelPending } from '../delivery/queue/cancel.js';
import { SubscriptionStore } from './store.js';

export interface EndedWebhooks {
  subscriptionsEnded: number;
  deliveriesCancelled: number;
}

export async function endClientWebhooks(trx: Executor, clientRef: string, now: number): Promise<EndedWebhooks> {
  const ended = await new SubscriptionStore(trx).revokeForClient(clientRef, 'client-revoked', now);
  return { subscriptionsEnded: ended.length, deliveriesCancelled: await cancelPending(trx, ended, now) };
}
