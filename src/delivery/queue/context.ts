/** Loading what a claimed delivery needs to be sent: its event, subscription and client. */
import { ClientStore } from '../../auth/client-store.js';
import type { Executor, SendContext } from './types.js';

/** Loads the event, subscription and client of claimed deliveries in two queries. */
export async function loadContexts(db: Executor, deliveryIds: readonly string[]): Promise<SendContext[]> {
  if (deliveryIds.length === 0) return [];
  const rows = await db
    .selectFrom('deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('subscriptions as s', 's.id', 'd.subscription_id')
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
      's.client_ref',
    ])
    .where('d.id', 'in', deliveryIds)
    .execute();
  const clients = await new ClientStore(db).findByIds([...new Set(rows.map((row) => row.client_ref))]);
  const byRef = new Map(clients.map((client) => [client.id, client]));
  const contexts: SendContext[] = [];
  for (const row of rows) {
    const client = byRef.get(row.client_ref);
    if (client === undefined) continue;
    contexts.push({
      id: row.id,
      attemptCount: Number(row.attempt_count),
      eventName: row.name,
      eventId: row.event_id,
      payload: row.payload,
      subscriptionId: row.subscription_id,
      subscriptionStatus: row.subscription_status,
      notificationUrl: row.notification_url,
      client,
      createdAt: Number(row.created_at),
    });
  }
  return contexts;
}
