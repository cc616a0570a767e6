/** SQL behind the operator overview: counts and the raw rows of the last 24 hours' delivery work. */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';

const count = (row: { count: number | string | bigint } | undefined): number => Number(row?.count ?? 0);

export class OverviewStore {
  constructor(private readonly db: Db) {}

  async counts(): Promise<{
    clients: number;
    subscriptions: number;
    publishedLists: number;
    publishedOffers: number;
    queueDepth: number;
  }> {
    const k = this.db.kysely;
    const [clients, subscriptions, publishedLists, publishedOffers, queueDepth] = await Promise.all([
      k
        .selectFrom('clients')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('revoked_at', 'is', null)
        .executeTakeFirst(),
      k
        .selectFrom('subscriptions')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirst(),
      k
        .selectFrom('lists')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('status', '=', 'published')
        .executeTakeFirst(),
      k
        .selectFrom('offers')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('status', '=', 'published')
        .executeTakeFirst(),
      k
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('status', '=', 'pending')
        .executeTakeFirst(),
    ]);
    return {
      clients: count(clients),
      subscriptions: count(subscriptions),
      publishedLists: count(publishedLists),
      publishedOffers: count(publishedOffers),
      queueDepth: count(queueDepth),
    };
  }

  async failedSince(since: number): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('status', '=', 'failed')
      .where('completed_at', '>=', since)
      .executeTakeFirst();
    return count(row);
  }

  /** Commit-to-delivery latencies (ms) of deliveries that succeeded since `since`, at most `cap` of the newest. */
  async latencies(since: number, cap: number): Promise<number[]> {
    const rows = await this.db.kysely
      .selectFrom('deliveries')
      .select(['created_at', 'completed_at'])
      .where('status', '=', 'succeeded')
      .where('completed_at', '>=', since)
      .orderBy('completed_at', 'desc')
      .limit(cap)
      .execute();
    return rows.map((row) => Number(row.completed_at) - Number(row.created_at));
  }

  /** Attempts since `since`, grouped by hour bucket and outcome, counted by the database. */
  async attemptsByHour(since: number): Promise<{ hour: number; ok: boolean; count: number }[]> {
    const hourMs = 3_600_000;
    const rows = await this.db.kysely
      .selectFrom('delivery_attempts')
      .select((eb) => [
        // Integer division spelled the same way on both engines: (t - t % h) / h.
        sql<number>`(started_at - (started_at % ${sql.lit(hourMs)})) / ${sql.lit(hourMs)}`.as('hour'),
        eb
          .case()
          .when(eb.and([eb('status_code', '>=', 200), eb('status_code', '<', 300)]))
          .then(1)
          .else(0)
          .end()
          .as('ok'),
        eb.fn.countAll<number>().as('count'),
      ])
      .where('started_at', '>=', since)
      .groupBy(['hour', 'ok'])
      .execute();
    return rows.map((row) => ({ hour: Number(row.hour), ok: Number(row.ok) === 1, count: Number(row.count) }));
  }

  /** Per subscription: the last success and how many deliveries failed after it. */
  async health(): Promise<{ subscriptionId: string; lastSuccessAt: number | null; consecutiveFailures: number }[]> {
    const k = this.db.kysely;
    const successes = await k
      .selectFrom('deliveries')
      .select((eb) => ['subscription_id', eb.fn.max('completed_at').as('last')])
      .where('status', '=', 'succeeded')
      .groupBy('subscription_id')
      .execute();
    const last = new Map(successes.map((row) => [row.subscription_id, Number(row.last)]));
    const failures = await k
      .selectFrom('deliveries')
      .select(['subscription_id', 'completed_at'])
      .where('status', '=', 'failed')
      .execute();
    const ids = new Set([...last.keys(), ...failures.map((row) => row.subscription_id)]);
    return [...ids].map((subscriptionId) => {
      const lastSuccess = last.get(subscriptionId);
      const consecutiveFailures = failures.filter(
        (row) => row.subscription_id === subscriptionId && Number(row.completed_at) > (lastSuccess ?? -1),
      ).length;
      return { subscriptionId, lastSuccessAt: lastSuccess ?? null, consecutiveFailures };
    });
  }
}
