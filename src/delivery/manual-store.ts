/**
 * SQL behind the attempts made by hand (manual.ts): a test ping recorded with its one attempt, and
 * "Retry now" on a delivery waiting for its next scheduled attempt, leased while it is sent so no
 * worker sends it at the same time, then recorded without moving the schedule.
 */
import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import { newDelivery } from '../events/outbox.js';
import { ids } from '../ids.js';
import type { AttemptRecord } from './queue/types.js';
import type { WebhookSecrets } from './signer.js';
import { addStats } from './stats.js';
import { announceHealth } from './subscription-health.js';

/** Where a subscription's webhooks go, and its client's secrets that sign them. */
export interface ManualTarget {
  subscriptionId: string;
  subscriptionStatus: string;
  notificationUrl: string;
  secrets: WebhookSecrets;
}

/** A delivery leased for a manual attempt, with what is needed to send it. */
export interface LeasedDelivery extends ManualTarget {
  id: string;
  eventName: string;
  /** The event's id (x-hook-event-id). */
  eventId: string;
  payload: string;
  /** The delivery's attempts so far, scheduled and manual: this attempt's number is one more. */
  attemptsSoFar: number;
}

const attemptRow = (deliveryId: string, attempt: AttemptRecord) => ({
  id: ids.attempt(),
  delivery_id: deliveryId,
  attempt_no: attempt.attemptNo,
  started_at: attempt.startedAt,
  duration_ms: attempt.durationMs,
  status_code: attempt.statusCode,
  error_class: attempt.errorClass,
  error_message: attempt.errorMessage,
  response_body: attempt.responseBody,
});

export class ManualAttemptStore {
  constructor(private readonly db: Db) {}

  async target(subscriptionId: string): Promise<ManualTarget | undefined> {
    const subscription = await this.db.kysely
      .selectFrom('subscriptions')
      .select(['id', 'status', 'notification_url', 'client_ref'])
      .where('id', '=', subscriptionId)
      .executeTakeFirst();
    if (subscription === undefined) return undefined;
    const client = await this.db.kysely
      .selectFrom('clients')
      .select(['webhook_secret', 'previous_webhook_secret', 'previous_webhook_secret_expires_at'])
      .where('id', '=', subscription.client_ref)
      .executeTakeFirst();
    if (client === undefined) return undefined;
    return {
      subscriptionId: subscription.id,
      subscriptionStatus: subscription.status,
      notificationUrl: subscription.notification_url,
      secrets: {
        current: client.webhook_secret,
        previous: client.previous_webhook_secret,
        previousUntil: client.previous_webhook_secret_expires_at,
      },
    };
  }

  /**
   * A ping event and its one delivery, finished with its one attempt: never queued, so no worker
   * retries it; outside the hourly counters and the subscription's health. In the caller's transaction.
   */
  async recordPing(
    trx: Executor,
    ping: {
      deliveryId: string;
      /** The id the ping was sent with (x-hook-event-id). */
      eventId: string;
      subscriptionId: string;
      identifier: string;
      payload: string;
      now: number;
      attempt: AttemptRecord;
    },
  ): Promise<void> {
    const { deliveryId, eventId, subscriptionId, identifier, payload, now, attempt } = ping;
    await trx
      .insertInto('events')
      .values({ id: eventId, name: 'ping', resource: 'subscription', identifier, payload, created_at: now })
      .execute();
    await trx
      .insertInto('deliveries')
      .values({
        ...newDelivery(eventId, subscriptionId, now, deliveryId),
        status: attempt.errorClass === null ? 'succeeded' : 'failed',
        attempt_count: 1,
        last_status_code: attempt.statusCode,
        last_error_class: attempt.errorClass,
        completed_at: now,
      })
      .execute();
    await trx.insertInto('delivery_attempts').values(attemptRow(deliveryId, attempt)).execute();
  }

  /**
   * Leases a delivery that waits for its next scheduled attempt (pending, attempted before, not due
   * yet, held by no worker) to `owner` until `leaseUntil`; its next_attempt_at stays as it is.
   */
  async lease(id: string, owner: string, now: number, leaseUntil: number): Promise<LeasedDelivery | undefined> {
    const leased = await this.db.kysely
      .updateTable('deliveries')
      .set({ lease_owner: owner, lease_until: leaseUntil })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('attempt_count', '>', 0)
      .where('next_attempt_at', '>', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .returning(['event_id', 'subscription_id', 'attempt_count', 'manual_attempts'])
      .executeTakeFirst();
    if (leased === undefined) return undefined;
    const event = await this.db.kysely
      .selectFrom('events')
      .select(['name', 'payload'])
      .where('id', '=', leased.event_id)
      .executeTakeFirst();
    const target = await this.target(leased.subscription_id);
    if (event === undefined || target === undefined) {
      await this.release(id, owner);
      return undefined;
    }
    return {
      ...target,
      id,
      eventName: event.name,
      eventId: leased.event_id,
      payload: event.payload,
      attemptsSoFar: Number(leased.attempt_count) + Number(leased.manual_attempts ?? 0),
    };
  }

  async release(id: string, owner: string): Promise<void> {
    await this.db.kysely
      .updateTable('deliveries')
      .set({ lease_owner: null, lease_until: null })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /**
   * Records a manual attempt of a leased delivery. Success finishes it (and ends the subscription's
   * failing run) as a scheduled success would. Failure leaves it pending with its next scheduled
   * attempt where it was, and counts as a failed attempt in the hour and in the subscription's run.
   * Either way attempt_count (the schedule's position) is unchanged: manual_attempts counts this one.
   * A failure announces subscription.failing as a scheduled one would, once the subscription has been
   * failing since `noticeCutoff` (`announced`: the deliveries of that announcement).
   */
  async recordManual(
    trx: Executor,
    leased: { id: string; owner: string; subscriptionId: string },
    now: number,
    attempt: AttemptRecord,
    noticeCutoff: number,
  ): Promise<{ nextAttemptAt: number | null; announced: number } | undefined> {
    const { id, owner, subscriptionId } = leased;
    const ok = attempt.errorClass === null;
    const updated = await trx
      .updateTable('deliveries')
      .set((eb) => ({
        manual_attempts: sql<number>`${eb.ref('manual_attempts')} + 1`,
        lease_owner: null,
        lease_until: null,
        last_status_code: attempt.statusCode,
        last_error_class: attempt.errorClass,
        updated_at: now,
        ...(ok ? { status: 'succeeded', completed_at: now } : {}),
      }))
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .returning('next_attempt_at')
      .executeTakeFirst();
    if (updated === undefined) return undefined;
    await trx.insertInto('delivery_attempts').values(attemptRow(id, attempt)).execute();
    await addStats(trx, now, ok ? { attemptsOk: 1, succeeded: 1 } : { attemptsFailed: 1 });
    await trx
      .updateTable('subscriptions')
      .set((eb) =>
        ok
          ? { failing_since: null, consecutive_failures: 0, last_success_at: now }
          : {
              failing_since: eb.fn.coalesce('failing_since', sql<number>`${now}`),
              consecutive_failures: sql<number>`${eb.ref('consecutive_failures')} + 1`,
            },
      )
      .where('id', '=', subscriptionId)
      .execute();
    const announced = ok
      ? 0
      : await announceHealth(trx, this.db.dialect, { subscriptionId, now, disabled: false, noticeCutoff });
    return { nextAttemptAt: ok ? null : Number(updated.next_attempt_at), announced };
  }
}
