/**
 * The delivery log and its controls, for the operator (every delivery) and for clients (their own
 * subscriptions only; another client's subscription is "not found", never "forbidden").
 */
import type { Initiator } from '../audit/initiator.js';
import type { UnitOfWork } from '../changes/unit-of-work.js';
import { isoTime } from '../clock.js';
import { canonicalEvent } from '../events/catalogue.js';
import { clientRevoked, notFound, Problem } from '../problems/catalogue.js';
import { type Page, toPage } from '../vocabulary/paging.js';
import type { ManualAttempts, ManualOutcome } from './manual.js';
import { DEFAULT_DELIVERY_PAGE } from './model.js';
import type { DeliveryFilter, DeliveryQueryStore } from './query-store.js';
import type { AttemptView, DeliveryView } from './schemas.js';
import { toAttemptView, toDeliveryView } from './views.js';

export interface DeliveryQuery {
  status?: string | undefined;
  subscriptionId?: string | undefined;
  event?: string | undefined;
  limit?: number | undefined;
  starting_after?: string | undefined;
  /** ISO 8601 bounds on createdAt: from inclusive, until exclusive. */
  since?: string | undefined;
  until?: string | undefined;
}

function instant(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Problem('validation-failed', `${name} must be an ISO 8601 date-time`);
  return ms;
}

export class DeliveryService {
  constructor(
    private readonly store: DeliveryQueryStore,
    /** Wakes this process's delivery workers, so a delivery made due here is attempted at once. */
    private readonly wakeWorkers: () => void = () => undefined,
    /** Attempts made by hand: test pings and "Retry now" (manual.ts). */
    private readonly manual: ManualAttempts,
    /** A retry or a recovery is one change, with its audit record. */
    private readonly work: UnitOfWork,
  ) {}

  /** Failed manual attempts (pings, "Retry now") are logged to the app's logger. */
  logManualAttemptsTo(logger: Parameters<ManualAttempts['logTo']>[0]): void {
    this.manual.logTo(logger);
  }
  /** Closes what manual attempts opened (their HTTP connections). */
  close(): Promise<void> {
    return this.manual.close();
  }

  async list(query: DeliveryQuery, clientRef?: string): Promise<Page<DeliveryView>> {
    const limit = query.limit ?? DEFAULT_DELIVERY_PAGE;
    let event = query.event;
    if (event !== undefined && event !== 'ping') {
      event = canonicalEvent(event);
      if (event === undefined)
        throw new Problem('validation-failed', `event ${JSON.stringify(query.event)} is not a known event`);
    }
    let after: { id: string; created_at: number } | undefined;
    if (query.starting_after !== undefined) {
      const row = await this.store.get(query.starting_after);
      if (row === undefined) throw new Problem('validation-failed', 'starting_after does not name a delivery');
      after = { id: row.id, created_at: Number(row.created_at) };
    }
    const filter: DeliveryFilter = {
      status: query.status,
      subscriptionId: query.subscriptionId,
      event,
      clientRef,
      createdFrom: instant('since', query.since),
      createdBefore: instant('until', query.until),
    };
    const rows = await this.store.list(filter, limit, after);
    return toPage(rows, limit, toDeliveryView);
  }

  /** One client's view of one of its subscriptions' deliveries. */
  async listForSubscription(
    subscriptionId: string,
    clientRef: string,
    query: DeliveryQuery,
  ): Promise<Page<DeliveryView>> {
    await this.ownSubscription(subscriptionId, clientRef);
    return this.list({ ...query, subscriptionId }, clientRef);
  }

  async get(id: string): Promise<DeliveryView & { attempts: AttemptView[] }> {
    const row = await this.store.get(id);
    if (row === undefined) throw notFound(`delivery ${id}`);
    const attempts = await this.store.attempts(id);
    return {
      ...toDeliveryView(row),
      attempts: attempts.map((attempt, index) => toAttemptView(row, attempt, index + 1)),
    };
  }

  /** Sends a finished delivery again now (one more attempt; a failure ends it as failed again). */
  async retry(id: string, by: Initiator): Promise<DeliveryView> {
    const row = await this.store.get(id);
    if (row === undefined) throw notFound(`delivery ${id}`);
    const subscription = await this.store.subscription(row.subscription_id);
    if (subscription?.status === 'revoked') throw clientRevoked(`delivery ${id}`);
    if (row.status === 'pending')
      throw new Problem('conflict', 'the delivery is already pending; it will be attempted when due');
    if (row.event === 'ping') throw new Problem('conflict', 'a test ping is one attempt; send another ping instead');
    if (subscription?.status !== 'active') {
      throw new Problem(
        'conflict',
        'the subscription is disabled; recover it (POST /subscriptions/{id}/recover) to re-enable it and re-send what failed',
      );
    }
    const requeued = await this.work.run(by, async ({ trx, now, record }) => {
      const before = await this.store.requeue(trx, id, now);
      if (before !== undefined)
        record('delivery.retried', id, {
          status: { before, after: 'pending' },
          nextAttemptAt: { before: null, after: isoTime(now) },
        });
      return before !== undefined;
    });
    if (!requeued) throw new Problem('conflict', 'the delivery is already pending');
    this.wakeWorkers();
    const updated = await this.store.get(id);
    if (updated === undefined) throw notFound(`delivery ${id}`);
    return toDeliveryView(updated);
  }

  /** "Retry now": sends a waiting delivery before answering, taking no step of its schedule (manual.ts). */
  async sendNow(id: string, by: Initiator): Promise<DeliveryView> {
    const row = await this.store.get(id);
    if (row === undefined) throw notFound(`delivery ${id}`);
    if ((await this.store.subscription(row.subscription_id))?.status === 'revoked')
      throw clientRevoked(`delivery ${id}`);
    if (row.status !== 'pending') throw new Problem('conflict', 'the delivery is finished; retry it instead');
    if ((await this.manual.retryNow(id, by)) === undefined)
      throw new Problem('conflict', 'the delivery is due or being attempted already');
    const updated = await this.store.get(id);
    if (updated === undefined) throw notFound(`delivery ${id}`);
    return toDeliveryView(updated);
  }

  /** Re-enables a subscription and re-queues its failed deliveries created at or after `since`. */
  async recover(subscriptionId: string, since: string, by: Initiator): Promise<{ requeued: number }> {
    const sinceMs = Date.parse(since);
    if (Number.isNaN(sinceMs)) throw new Problem('validation-failed', 'since must be an ISO 8601 date-time');
    const subscription = await this.store.subscription(subscriptionId);
    if (subscription === undefined) throw notFound(`subscription ${subscriptionId}`);
    if (subscription.status === 'revoked') throw clientRevoked(`subscription ${subscriptionId}`);
    const requeued = await this.work.run(by, async ({ trx, now, record }) => {
      const resent = await this.store.recover(trx, subscriptionId, sinceMs, now);
      record('subscription.recovered', subscriptionId, {
        status: { before: subscription.status, after: 'active' },
        resent: { before: null, after: resent },
        since: { before: null, after: isoTime(sinceMs) },
      });
      return resent;
    });
    if (requeued > 0) this.wakeWorkers();
    return { requeued };
  }

  /** One delivery of one client's subscriptions; another client's delivery is "not found". */
  async getOwn(id: string, clientRef: string): Promise<DeliveryView & { attempts: AttemptView[] }> {
    await this.ownDelivery(id, clientRef);
    return this.get(id);
  }

  async retryOwn(id: string, clientRef: string, by: Initiator): Promise<DeliveryView> {
    await this.ownDelivery(id, clientRef);
    return this.retry(id, by);
  }

  async sendNowOwn(id: string, clientRef: string, by: Initiator): Promise<DeliveryView> {
    await this.ownDelivery(id, clientRef);
    return this.sendNow(id, by);
  }

  async recoverOwn(
    subscriptionId: string,
    clientRef: string,
    since: string,
    by: Initiator,
  ): Promise<{ requeued: number }> {
    await this.ownSubscription(subscriptionId, clientRef);
    return this.recover(subscriptionId, since, by);
  }

  private async ownDelivery(id: string, clientRef: string): Promise<void> {
    const row = await this.store.get(id);
    const subscription = row === undefined ? undefined : await this.store.subscription(row.subscription_id);
    if (subscription?.client_ref !== clientRef) throw notFound(`delivery ${id}`);
  }

  /** A test ping: one attempt made before answering, its outcome the answer; never retried (manual.ts). */
  async ping(subscriptionId: string, clientRef: string, by: Initiator): Promise<ManualOutcome> {
    const subscription = await this.ownSubscription(subscriptionId, clientRef);
    if (subscription.status === 'revoked') throw clientRevoked(`subscription ${subscriptionId}`);
    if (subscription.status !== 'active') throw new Problem('conflict', 'the subscription is disabled');
    const target = await this.manual.target(subscriptionId);
    if (target === undefined) throw notFound(`subscription ${subscriptionId}`);
    return this.manual.ping(target, by);
  }

  private async ownSubscription(subscriptionId: string, clientRef: string): Promise<{ id: string; status: string }> {
    const subscription = await this.store.subscription(subscriptionId);
    if (subscription?.client_ref !== clientRef) throw notFound(`subscription ${subscriptionId}`);
    return subscription;
  }
}
