import { type Migration, sql } from 'kysely';
import type { UntypedDb } from './untyped.js';

const HOUR_MS = 3_600_000;

/**
 * History that no read scans: grouping every delivery and attempt ever made, or walking the whole
 * table for the newest 50 of a status or a client, would slow every read as the history grows
 * (docs/decisions/0003-paced-prune.md).
 *
 * - `delivery_stats`: completions and attempts counted per hour where they are recorded (the
 *   completion batch adds to its hour's row), so the overview's 24 hours read 24 rows a writer.
 *   `shard` spreads concurrent workers over rows (PostgreSQL), so two workers never wait on one row.
 * - `subscriptions.last_success_at` / `consecutive_failures`: a subscription's health kept on its
 *   row by the completions (failed deliveries since the last success; the last success to the minute).
 * - Indexes that fit the reads: `(status, created_at, id)` of the finished rows serves a newest-first
 *   page per status (the admin list merges one bounded walk per status; pending rows are the queue,
 *   bounded, read through the due indexes), the succeeded sample of the latency p95 and the pruner's
 *   walk over old rows; `(subscription_id, status, created_at, id)` replaces
 *   `(subscription_id, created_at)` for the per-subscription and per-client pages; `deliveries
 *   (event_id)` and `events (created_at)` let the pruner drop an event once no delivery refers to it
 *   (and PostgreSQL check the foreign key) without scanning.
 *
 * The counters start from the history already there (one scan, here, once).
 */
export const history: Migration = {
  async up(db: UntypedDb) {
    await db.schema
      .createTable('delivery_stats')
      .addColumn('hour', 'bigint', (c) => c.notNull())
      .addColumn('shard', 'integer', (c) => c.notNull())
      .addColumn('attempts_ok', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('attempts_failed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('succeeded', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('delivery_stats_pk', ['hour', 'shard'])
      .execute();
    await db.schema.alterTable('subscriptions').addColumn('last_success_at', 'bigint').execute();
    await db.schema
      .alterTable('subscriptions')
      .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();

    await db.schema.dropIndex('deliveries_subscription').ifExists().execute();
    await db.schema
      .createIndex('deliveries_subscription')
      .on('deliveries')
      .columns(['subscription_id', 'status', 'created_at', 'id'])
      .execute();
    // Finished rows only: a pending insert adds no entry, and SQLite's planner never weighs it
    // against the due indexes for a claim (queries that use it repeat the predicate, as SQLite needs).
    await sql`create index deliveries_finished on deliveries (status, created_at, id) where status <> 'pending'`.execute(
      db,
    );
    await db.schema.createIndex('deliveries_event').on('deliveries').column('event_id').execute();
    await db.schema.createIndex('events_created').on('events').column('created_at').execute();

    const hour = (column: string) => sql.raw(`(${column} - (${column} % ${HOUR_MS}))`);
    await sql`
      insert into delivery_stats (hour, shard, attempts_ok, attempts_failed, succeeded, failed)
      select hour, 0, sum(attempts_ok), sum(attempts_failed), sum(succeeded), sum(failed) from (
        select ${hour('started_at')} as hour,
               sum(case when status_code >= 200 and status_code < 300 then 1 else 0 end) as attempts_ok,
               sum(case when status_code >= 200 and status_code < 300 then 0 else 1 end) as attempts_failed,
               0 as succeeded, 0 as failed
        from delivery_attempts group by 1
        union all
        select ${hour('completed_at')} as hour, 0, 0,
               sum(case when status = 'succeeded' then 1 else 0 end),
               sum(case when status = 'failed' then 1 else 0 end)
        from deliveries where completed_at is not null group by 1
      ) as counted group by hour`.execute(db);
    await sql`
      update subscriptions set last_success_at = (
        select max(completed_at) from deliveries d where d.subscription_id = subscriptions.id and d.status = 'succeeded'
      )`.execute(db);
    await sql`
      update subscriptions set consecutive_failures = (
        select count(*) from deliveries d
        where d.subscription_id = subscriptions.id and d.status = 'failed'
          and d.completed_at > coalesce(subscriptions.last_success_at, -1)
      )`.execute(db);
  },
  async down(db: UntypedDb) {
    await db.schema.dropIndex('events_created').ifExists().execute();
    await db.schema.dropIndex('deliveries_event').ifExists().execute();
    await db.schema.dropIndex('deliveries_finished').ifExists().execute();
    await db.schema.dropIndex('deliveries_subscription').ifExists().execute();
    await db.schema
      .createIndex('deliveries_subscription')
      .on('deliveries')
      .columns(['subscription_id', 'created_at'])
      .execute();
    await db.schema.alterTable('subscriptions').dropColumn('consecutive_failures').execute();
    await db.schema.alterTable('subscriptions').dropColumn('last_success_at').execute();
    await db.schema.dropTable('delivery_stats').ifExists().execute();
  },
};
