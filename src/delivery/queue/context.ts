/** Loading what a claimed delivery needs to be sent: its event, subscription and its client's webhook secrets. */
import type { Executor, SendContext } from './types.js';

/** Loads the event, subscription and webhook secrets of claimed deliveries in one query. */
export async function loadContexts(db: Executor, deliveryIds: readonly string[]): Promise<SendContext[]> {
  if (deliveryIds.length === 0) return [];
  const rows = await db
    .selectFrom('deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('subscriptions as s', 's.id', 'd.subscription_id')
    .innerJoin('clients as c', 'c.id', 's.client_ref')
    .select([
      'd.id',
      'd.attempt_count',
      'd.created_at',
      'd.event_id',
      'e.name',
      'e.payload',
      's.id as subscription_id',
      's.status as subscription_status',
      's.notification_url',
      'c.webhook_secret',
      'c.previous_webhook_secret',
      'c.previous_webhook_secret_expires_at',
    ])
    .where('d.id', 'in', deliveryIds)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    attemptCount: Number(row.attempt_count),
    eventName: row.name,
    eventId: row.event_id,
    payload: row.payload,
    subscriptionId: row.subscription_id,
    subscriptionStatus: row.subscription_status,
    notificationUrl: row.notification_url,
    secrets: {
      current: row.webhook_secret,
      previous: row.previous_webhook_secret,
      previousUntil: row.previous_webhook_secret_expires_at,
    },
    createdAt: Number(row.created_at),
  }));
}
