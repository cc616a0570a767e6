/** SQL behind the delivery log and its controls: listing, detail, re-queueing and pings. */
import type { Db } from '../db/database.js';
import type { DeliveryAttemptRow } from '../db/schema.js';
import { newDelivery } from '../events/outbox.js';
import { ids } from '../ids.js';
import { afterCursor } from '../db/keyset.js';

export interface DeliveryListRow {
  id: string;
  subscription_id: string;
  event: string;
  payload: string;
  status: string;
  attempt_count: number;
  next_attempt_at: number;
  last_status_code: number | null;
  last_error_class: string | null;
  created_at: number;
  completed_at: number | null;
}

export interface DeliveryFilter {
  status?: string | undefined;
  subscriptionId?: string | undefined;
  event?: string | undefined;
  /** Restrict to one client's subscriptions. */
  clientRef?: string | undefined;
  /** Created at or after / before these instants (epoch ms). */
  createdFrom?: number | undefined;
  createdBefore?: number | undefined;
}

/** A delivery made due now again: pending, unleased, not completed (requeue and recover). */
const dueNow = (now: number) =>
  ({
    status: 'pending',
    next_attempt_at: now,
    lease_owner: null,
    lease_until: null,
    completed_at: null,
    updated_at: now,
  }) as const;

export class DeliveryQueryStore {
  constructor(private readonly db: Db) {}

  private base() {
    return this.db.kysely
      .selectFrom('deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select([
        'd.id',
        'd.subscription_id',
        'e.name as event',
        'e.payload',
        'd.status',
        'd.attempt_count',
        'd.next_attempt_at',
        'd.last_status_code',
        'd.last_error_class',
        'd.created_at',
        'd.completed_at',
      ]);
  }

  /** Newest first; `after` is the last row of the previous page. Fetches limit + 1 to tell whether more exist. */
  async list(
    filter: DeliveryFilter,
    limit: number,
    after?: { id: string; created_at: number },
  ): Promise<DeliveryListRow[]> {
    let query = this.base();
    if (filter.status !== undefined) query = query.where('d.status', '=', filter.status);
    if (filter.subscriptionId !== undefined) query = query.where('d.subscription_id', '=', filter.subscriptionId);
    if (filter.event !== undefined) query = query.where('e.name', '=', filter.event);
    if (filter.clientRef !== undefined) {
      const clientRef = filter.clientRef;
      query = query.where('d.subscription_id', 'in', (eb) =>
        eb.selectFrom('subscriptions').select('id').where('client_ref', '=', clientRef),
      );
    }
    if (filter.createdFrom !== undefined) query = query.where('d.created_at', '>=', filter.createdFrom);
    if (filter.createdBefore !== undefined) query = query.where('d.created_at', '<', filter.createdBefore);
    if (after !== undefined) {
      const cursor = { created: after.created_at, id: after.id };
      query = query.where((eb) => afterCursor(eb, { created: 'd.created_at', id: 'd.id' }, cursor, '<'));
    }
    return query
      .orderBy('d.created_at', 'desc')
      .orderBy('d.id', 'desc')
      .limit(limit + 1)
      .execute();
  }

  get(id: string): Promise<DeliveryListRow | undefined> {
    return this.base().where('d.id', '=', id).executeTakeFirst();
  }

  attempts(deliveryId: string): Promise<DeliveryAttemptRow[]> {
    return this.db.kysely
      .selectFrom('delivery_attempts')
      .selectAll()
      .where('delivery_id', '=', deliveryId)
      .orderBy('attempt_no')
      .execute();
  }

  /** Makes a finished delivery due now; false when it is pending (or gone). */
  async requeue(id: string, now: number): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('deliveries')
      .set(dueNow(now))
      .where('id', '=', id)
      .where('status', 'in', ['failed', 'succeeded'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Makes a delivery that waits for its next scheduled attempt due now; false unless it is pending,
   * was attempted already, is not due yet and no worker holds it.
   */
  async advance(id: string, now: number): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('deliveries')
      .set({ next_attempt_at: now, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('attempt_count', '>', 0)
      .where('next_attempt_at', '>', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Re-activates the subscription and makes its failed deliveries created since `since` due now. */
  async recover(subscriptionId: string, since: number, now: number): Promise<number> {
    return this.db.kysely.transaction().execute(async (trx) => {
      await trx
        .updateTable('subscriptions')
        .set({ status: 'active', disabled_reason: null, failing_since: null, updated_at: now })
        .where('id', '=', subscriptionId)
        .execute();
      const result = await trx
        .updateTable('deliveries')
        .set(dueNow(now))
        .where('subscription_id', '=', subscriptionId)
        .where('status', '=', 'failed')
        .where('created_at', '>=', since)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    });
  }

  /** A ping event and its one delivery, for this subscription only. */
  async createPing(subscriptionId: string, payload: string, identifier: string, now: number): Promise<string> {
    const deliveryId = ids.delivery();
    await this.db.kysely.transaction().execute(async (trx) => {
      const eventId = ids.event();
      await trx
        .insertInto('events')
        .values({ id: eventId, name: 'ping', resource: 'subscription', identifier, payload, created_at: now })
        .execute();
      await trx
        .insertInto('deliveries')
        .values(newDelivery(eventId, subscriptionId, now, deliveryId))
        .execute();
    });
    return deliveryId;
  }

  subscription(id: string): Promise<{ id: string; client_ref: string; status: string } | undefined> {
    return this.db.kysely
      .selectFrom('subscriptions')
      .select(['id', 'client_ref', 'status'])
      .where('id', '=', id)
      .executeTakeFirst();
  }
}
