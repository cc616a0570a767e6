/**
 * SQL behind the operator overview. No read here walks the history: counts of small
 * tables, the queue through its partial indexes, the hourly counters the completions keep
 * (delivery_stats), the newest successes down an index, and the health each subscription's row keeps.
 *
 * The counts of clients, lists and offers are their stores'. The reads of subscriptions, deliveries,
 * delivery_stats and worker_heartbeats are written here: only the overview and its /metrics gauges
 * (queue-gauges.ts, worker-gauges.ts) make them.
 */
import { type SqlBool, sql } from 'kysely';
import { ClientStore } from '../auth/client-store.js';
import type { Db } from '../db/database.js';
import { ListStore } from '../lml/list-store.js';
import { OfferStore } from '../offers/store.js';

const count = (row: { count: number | string | bigint } | undefined): number => Number(row?.count ?? 0);

export interface HourCounts {
  hour: number;
  attemptsOk: number;
  attemptsFailed: number;
  succeeded: number;
  failed: number;
}

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
    // Clients, lists and offers are counted by their capability's store; the rest here (see the header).
    const [clients, subscriptions, publishedLists, publishedOffers, queue] = await Promise.all([
      new ClientStore(k).countActive(),
      k
        .selectFrom('subscriptions')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirst(),
      new ListStore(k).countPublished(),
      new OfferStore(k).countPublished(),
      this.queue(),
    ]);
    return {
      clients,
      subscriptions: count(subscriptions),
      publishedLists,
      publishedOffers,
      queueDepth: queue.pending,
    };
  }

  /**
   * The queue: pending deliveries and the oldest one's creation. Read as its two lanes, each the exact
   * predicate of its partial index (migration 0009), so the read is bounded by the backlog, not the history.
   */
  async queue(): Promise<{ pending: number; oldestCreatedAt: number | null }> {
    const lane = (predicate: ReturnType<typeof sql<SqlBool>>) =>
      this.db.kysely
        .selectFrom('deliveries')
        .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.min('created_at').as('oldest')])
        .where('status', '=', 'pending')
        .where(predicate)
        .executeTakeFirst();
    const lanes = await Promise.all([lane(sql<SqlBool>`attempt_count = 0`), lane(sql<SqlBool>`attempt_count > 0`)]);
    const oldest = lanes
      .map((row) => row?.oldest)
      .filter((value) => value !== null && value !== undefined)
      .map(Number);
    return {
      pending: lanes.reduce((sum, row) => sum + count(row), 0),
      oldestCreatedAt: oldest.length === 0 ? null : Math.min(...oldest),
    };
  }

  /**
   * Worker processes heard from since `aliveSince` and not stopped, and the newest heartbeat of any
   * (null when none is on record). The table holds a row per worker process of the last week (the
   * workers prune older ones, delivery/heartbeat.ts), so one pass over it answers both.
   */
  async workers(aliveSince: number): Promise<{ alive: number; lastSeenAt: number | null }> {
    const row = await this.db.kysely
      .selectFrom('worker_heartbeats')
      .select((eb) => [
        eb.fn
          .sum<number | string | null>(
            eb
              .case()
              .when(eb.and([eb('last_seen_at', '>=', aliveSince), eb('stopped_at', 'is', null)]))
              .then(1)
              .else(0)
              .end(),
          )
          .as('alive'),
        eb.fn.max('last_seen_at').as('last_seen'),
      ])
      .executeTakeFirst();
    const lastSeen = row?.last_seen;
    return {
      alive: Number(row?.alive ?? 0),
      lastSeenAt: lastSeen === null || lastSeen === undefined ? null : Number(lastSeen),
    };
  }

  /** Active subscriptions whose attempts have all failed since `failing_since` (the completions keep it). */
  async failingSubscriptions(): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('subscriptions')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('status', '=', 'active')
      .where('failing_since', 'is not', null)
      .executeTakeFirst();
    return count(row);
  }

  /** The hourly counters from `firstHour` on, summed over the writers' shards. */
  async hours(firstHour: number): Promise<HourCounts[]> {
    const rows = await this.db.kysely
      .selectFrom('delivery_stats')
      .select((eb) => [
        'hour',
        eb.fn.sum<number | string>('attempts_ok').as('attempts_ok'),
        eb.fn.sum<number | string>('attempts_failed').as('attempts_failed'),
        eb.fn.sum<number | string>('succeeded').as('succeeded'),
        eb.fn.sum<number | string>('failed').as('failed'),
      ])
      .where('hour', '>=', firstHour)
      .groupBy('hour')
      .execute();
    // Never below zero, even if rows were edited by hand behind the counters' back.
    const sum = (value: number | string) => Math.max(0, Number(value));
    return rows.map((row) => ({
      hour: Number(row.hour),
      attemptsOk: sum(row.attempts_ok),
      attemptsFailed: sum(row.attempts_failed),
      succeeded: sum(row.succeeded),
      failed: sum(row.failed),
    }));
  }

  /**
   * The p95 commit-to-delivery latency (ms) of the newest `cap` deliveries created since `since` that
   * succeeded, or null when none did: a bounded walk down deliveries_finished (whose predicate the
   * query repeats for SQLite), ranked in the database. Only the one figure leaves it, so the rows are
   * never received and parsed here (docs/performance.md#decisions). The nearest rank, as a percentile is read everywhere here: the ceil(0.95 n)-th
   * smallest (PostgreSQL's percentile_disc; on SQLite by row number).
   */
  async p95Latency(since: number, cap: number): Promise<number | null> {
    const sample = sql`select completed_at - created_at as latency from deliveries
      where status = 'succeeded' and status <> 'pending' and created_at >= ${since}
      order by created_at desc, id desc limit ${cap}`;
    const p = (await this.db.dialect.percentile(95, 'latency', sample).execute(this.db.kysely)).rows[0]?.p;
    return p === null || p === undefined ? null : Number(p);
  }

  /** Per subscription with any outcome: the last success and the attempts failed in a row since, as its row keeps them. */
  async health(): Promise<
    {
      subscriptionId: string;
      lastSuccessAt: number | null;
      consecutiveFailedAttempts: number;
      failingSince: number | null;
    }[]
  > {
    const rows = await this.db.kysely
      .selectFrom('subscriptions')
      .select(['id', 'last_success_at', 'consecutive_failures', 'failing_since'])
      .where((eb) => eb.or([eb('last_success_at', 'is not', null), eb('consecutive_failures', '>', 0)]))
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      subscriptionId: row.id,
      lastSuccessAt: row.last_success_at === null ? null : Number(row.last_success_at),
      consecutiveFailedAttempts: Number(row.consecutive_failures),
      failingSince: row.failing_since === null ? null : Number(row.failing_since),
    }));
  }
}
