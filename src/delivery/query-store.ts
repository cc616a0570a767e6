/** SQL behind the delivery log and its controls: listing, detail and re-queueing (pings and "Retry now": manual-store.ts). */

import type { ExpressionBuilder } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import type { Database, DeliveryAttemptRow } from '../db/schema.js';
import { clientRevoked } from '../problems/catalogue.js';
import { type DeliveryFilter, pageKeys } from './log-page.js';
import { uncountFinished } from './stats.js';

export type { DeliveryFilter };

export interface DeliveryListRow {
  id: string;
  subscription_id: string;
  event_id: string;
  event: string;
  payload: string;
  status: string;
  attempt_count: number;
  manual_attempts?: number;
  next_attempt_at: number;
  last_status_code: number | null;
  last_error_class: string | null;
  created_at: number;
  completed_at: number | null;
}

/** Not a test ping's delivery: a ping is one attempt, never sent again by a recovery. */
const notAPing = (eb: ExpressionBuilder<Database, 'deliveries'>) =>
  eb.not(
    eb.exists(
      eb
        .selectFrom('events')
        .select('events.id')
        .whereRef('events.id', '=', 'deliveries.event_id')
        .where('events.name', '=', 'ping'),
    ),
  );

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

/**
 * What the delivery log reads and changes of the subscriptions table: the subscriptions capability's
 * store (services.ts hands it over), so that table's SQL stays there and delivery/ imports nothing
 * above it. Given an executor, so a change joins the log's transaction.
 */
export interface SubscriptionRecords {
  /** The ids of the subscriptions matching every given field, in id order. */
  idsWhere(filter: {
    id?: string | undefined;
    clientRef?: string | undefined;
    event?: string | undefined;
  }): Promise<string[]>;
  find(id: string): Promise<{ id: string; client_ref: string; status: string } | undefined>;
  /** Active again, its disabled reason and failing period cleared; false when unknown or revoked. */
  enable(id: string, now: number): Promise<boolean>;
}

export class DeliveryQueryStore {
  constructor(
    private readonly db: Db,
    private readonly subscriptionsIn: (executor: Executor) => SubscriptionRecords,
  ) {}

  private base() {
    return this.db.kysely
      .selectFrom('deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select([
        'd.id',
        'd.subscription_id',
        'd.event_id',
        'e.name as event',
        'e.payload',
        'd.status',
        'd.attempt_count',
        'd.manual_attempts',
        'd.next_attempt_at',
        'd.last_status_code',
        'd.last_error_class',
        'd.created_at',
        'd.completed_at',
      ]);
  }

  /**
   * Newest first; `after` is the last row of the previous page. Fetches limit + 1 to tell whether more
   * exist. The page's keys come from bounded index walks (log-page.ts); only the page's rows are then
   * read and joined to their events.
   */
  async list(
    filter: DeliveryFilter,
    limit: number,
    after?: { id: string; created_at: number },
  ): Promise<DeliveryListRow[]> {
    const subscriptions = await this.subscriptionsOf(filter);
    if (subscriptions !== undefined && subscriptions.length === 0) return [];
    const keys = await pageKeys(this.db, filter, subscriptions, limit, after);
    if (keys.length === 0) return [];
    return this.base().where('d.id', 'in', keys).orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').execute();
  }

  /**
   * The subscriptions a filter confines the list to, or undefined for all. Every event but a ping
   * goes only to subscriptions to it, so an event filter names those subscriptions too.
   */
  private async subscriptionsOf(filter: DeliveryFilter): Promise<string[] | undefined> {
    const byEvent = filter.event !== undefined && filter.event !== 'ping' ? filter.event : undefined;
    if (filter.subscriptionId === undefined && filter.clientRef === undefined && byEvent === undefined)
      return undefined;
    return this.subscriptionsIn(this.db.kysely).idsWhere({
      id: filter.subscriptionId,
      clientRef: filter.clientRef,
      event: byEvent,
    });
  }

  get(id: string): Promise<DeliveryListRow | undefined> {
    return this.base().where('d.id', '=', id).executeTakeFirst();
  }

  attempts(deliveryId: string): Promise<DeliveryAttemptRow[]> {
    return (
      this.db.kysely
        .selectFrom('delivery_attempts')
        .selectAll()
        .where('delivery_id', '=', deliveryId)
        // In the order they were made: a manual attempt ("Retry now") is numbered apart from the schedule's.
        .orderBy('started_at')
        .orderBy('attempt_no')
        .execute()
    );
  }

  /**
   * Makes a finished delivery due now, in the caller's transaction; answers the status it had, or
   * undefined when it is pending (or gone). Its counters follow.
   */
  async requeue(trx: Executor, id: string, now: number): Promise<string | undefined> {
    const finished = await trx
      .selectFrom('deliveries')
      .select(['status', 'completed_at', 'subscription_id'])
      .where('id', '=', id)
      .where('status', 'in', ['failed', 'succeeded'])
      .executeTakeFirst();
    if (finished === undefined) return undefined;
    const result = await trx
      .updateTable('deliveries')
      .set(dueNow(now))
      .where('id', '=', id)
      .where('status', '=', finished.status)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    // The subscription's run of failed attempts is unchanged: those attempts did fail.
    await uncountFinished(trx, [finished]);
    return finished.status;
  }

  /**
   * Re-activates the subscription and makes its failed deliveries created since `since` due now, in the
   * caller's transaction; answers how many.
   */
  async recover(trx: Executor, subscriptionId: string, since: number, now: number): Promise<number> {
    // Not enabled: its client was revoked meanwhile, and nothing of it is queued again.
    if (!(await this.subscriptionsIn(trx).enable(subscriptionId, now)))
      throw clientRevoked(`subscription ${subscriptionId}`);
    // When each failed, read before the update clears it: their hours' counters give them back.
    const failed = await trx
      .selectFrom('deliveries')
      .select(['status', 'completed_at'])
      .where('subscription_id', '=', subscriptionId)
      .where('status', '=', 'failed')
      .where('created_at', '>=', since)
      .where(notAPing)
      .execute();
    const result = await trx
      .updateTable('deliveries')
      .set(dueNow(now))
      .where('subscription_id', '=', subscriptionId)
      .where('status', '=', 'failed')
      .where('created_at', '>=', since)
      .where(notAPing)
      .executeTakeFirst();
    await uncountFinished(trx, failed);
    // Re-enabled, it is no longer failing (enable cleared failing_since): its run of failed attempts starts again.
    await trx.updateTable('subscriptions').set({ consecutive_failures: 0 }).where('id', '=', subscriptionId).execute();
    return Number(result.numUpdatedRows);
  }

  subscription(id: string): Promise<{ id: string; client_ref: string; status: string } | undefined> {
    return this.subscriptionsIn(this.db.kysely).find(id);
  }
}
