/**
 * The SQL of pruning: one short batch per call, run inside the caller's transaction; the counts of a
 * dry run. The rules (which cutoff, in what order) are in service.ts and run.ts; the storage view's reads
 * are in storage-store.ts.
 *
 * Every walk follows an index (migration 0013): finished deliveries by (status, created_at, id), the
 * partial index `deliveries_finished` (a query repeats its predicate `status <> 'pending'`, as SQLite
 * needs to use it), events by created_at, attempts by their delivery and by their time-ordered id.
 * A walk carries a cursor (created_at, id) so a batch starts where the last one ended instead of
 * skipping again over the rows it kept; the cursor's `created_at >= c` is the index range.
 */
import { type RawBuilder, sql } from 'kysely';
import type { ChangeLogName } from '../db/change-log.js';
import type { Dialect, Executor } from '../db/database.js';
import { type Cursor, keysetCondition } from '../vocabulary/paging.js';
import type { BoundedTable } from './policy.js';

export interface Batch {
  ids: string[];
  /** Where the next batch starts; undefined when this one was empty. */
  last: Cursor | undefined;
}

/** A delivery's completion before `cutoff` (rows finished before completed_at was recorded fall back to updated_at). */
export const finishedBefore = (alias: string, cutoff: number): RawBuilder<unknown> =>
  sql`(${sql.ref(`${alias}.completed_at`)} < ${cutoff} or (${sql.ref(`${alias}.completed_at`)} is null and ${sql.ref(`${alias}.updated_at`)} < ${cutoff}))`;

const afterCursor = (after: Cursor | undefined): RawBuilder<unknown> =>
  after === undefined ? sql`` : sql` and ${keysetCondition({ created: 'created_at', id: 'id' }, after)}`;

const count = (rows: readonly { n: number | string | bigint }[]): number => Number(rows[0]?.n ?? 0);

/** The deliveries of `statuses` finished before `cutoff`, as an SQL condition on alias `d` (false when none may go). */
export interface PrunableClass {
  statuses: readonly string[];
  cutoff: number;
}

export function prunableDelivery(alias: string, classes: readonly PrunableClass[]): RawBuilder<unknown> {
  if (classes.length === 0) return sql`1 = 0`;
  return sql`(${sql.join(
    classes.map(
      (c) =>
        sql`(${sql.ref(`${alias}.status`)} in (${sql.join([...c.statuses])}) and ${finishedBefore(alias, c.cutoff)})`,
    ),
    sql` or `,
  )})`;
}

export class RetentionStore {
  constructor(readonly dialect: Dialect) {}

  // ---- batches (inside the caller's transaction) ----

  /**
   * Up to `limit` deliveries of `status` created and finished before `cutoff`, oldest first, only read:
   * the transactions that delete them lock and re-check their share (paced-batches.ts), so the read
   * takes no lock (on PostgreSQL locking the batch here would write to each of its rows).
   */
  async finishedBatch(trx: Executor, status: string, cutoff: number, after: Cursor | undefined, limit: number) {
    const { rows } = await sql<{ id: string; created_at: number }>`
      select id, created_at from deliveries
      where status = ${status} and status <> 'pending' and created_at < ${cutoff}${afterCursor(after)}
        and ${finishedBefore('deliveries', cutoff)}
      order by created_at, id limit ${limit}`.execute(trx);
    return batchOf(rows);
  }

  /** Up to `limit` events created before `cutoff`, oldest first. */
  async eventBatch(trx: Executor, cutoff: number, after: Cursor | undefined, limit: number): Promise<Batch> {
    const { rows } = await sql<{ id: string; created_at: number }>`
      select id, created_at from events where created_at < ${cutoff}${afterCursor(after)}
      order by created_at, id limit ${limit}`.execute(trx);
    return batchOf(rows);
  }

  /** Deletes those of the events that no delivery refers to (deliveries_event answers each check). */
  async deleteUnreferencedEvents(trx: Executor, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await trx
      .deleteFrom('events')
      .where('id', 'in', ids)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('deliveries').select('deliveries.id').whereRef('deliveries.event_id', '=', 'events.id'))),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Deletes up to about `limit` rows whose indexed `column` is below `bound` (or at it, `inclusive`),
   * lowest first: the limit-th value is looked up through the index and the range up to it deleted,
   * which needs no key list (the tables have composite keys) and works alike on both engines.
   */
  async deleteBelow(
    trx: Executor,
    table: 'delivery_stats' | 'idempotency_keys' | 'web_sessions',
    column: string,
    bound: number,
    limit: number,
    inclusive = false,
  ): Promise<number> {
    const t = sql.table(table);
    const c = sql.ref(column);
    const op = sql.raw(inclusive ? '<=' : '<');
    const { rows } = await sql<{ edge: number }>`
      select ${c} as edge from ${t} where ${c} ${op} ${bound} order by ${c} limit 1 offset ${limit - 1}`.execute(trx);
    const edge = rows[0]?.edge;
    const upTo = edge === undefined ? sql`` : sql` and ${c} <= ${Number(edge)}`;
    const result = await sql`delete from ${t} where ${c} ${op} ${bound}${upTo}`.execute(trx);
    return Number(result.numAffectedRows ?? 0);
  }

  /** Deletes up to `limit` portal links that were used or expired before `now` (a small table, unindexed). */
  async deleteLinks(trx: Executor, now: number, limit: number): Promise<number> {
    const result = await sql`
      delete from portal_links where token_hash in (
        select token_hash from portal_links where used_at is not null or expires_at < ${now} limit ${limit})`.execute(
      trx,
    );
    return Number(result.numAffectedRows ?? 0);
  }

  /** Deletes up to `limit` change-log entries recorded before `before`, never the newest (src/db/change-log.ts). */
  async deleteChanges(trx: Executor, log: ChangeLogName, before: number, limit: number): Promise<number> {
    const t = sql.table(log);
    const result = await sql`
      delete from ${t} where id in (
        select id from ${t} where changed_at < ${before} and id < (select max(id) from ${t}) order by id limit ${limit})`.execute(
      trx,
    );
    return Number(result.numAffectedRows ?? 0);
  }

  /** The next `limit` attempts after `after` in id order (ids are time-ordered, so this is their order of recording). */
  async attemptsAfter(trx: Executor, after: string, limit: number): Promise<{ id: string; started_at: number }[]> {
    return trx
      .selectFrom('delivery_attempts')
      .select(['id', 'started_at'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** Clears the response bodies of these attempts. */
  async clearBodies(trx: Executor, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await trx
      .updateTable('delivery_attempts')
      .set({ response_body: null })
      .where('id', 'in', ids)
      .where('response_body', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  // ---- dry run: what would go, counted with the same conditions ----

  async countFinished(
    db: Executor,
    statuses: readonly string[],
    cutoff: number,
  ): Promise<{ deliveries: number; attempts: number }> {
    const where = sql`status in (${sql.join([...statuses])}) and status <> 'pending' and created_at < ${cutoff} and ${finishedBefore('deliveries', cutoff)}`;
    const deliveries = await sql<{ n: number }>`select count(*) as n from deliveries where ${where}`.execute(db);
    const attempts = await sql<{ n: number }>`
      select count(*) as n from delivery_attempts where delivery_id in (select id from deliveries where ${where})`.execute(
      db,
    );
    return { deliveries: count(deliveries.rows), attempts: count(attempts.rows) };
  }

  /** Events created before `cutoff` that no delivery kept after the prune refers to. */
  async countEvents(db: Executor, cutoff: number, prunable: RawBuilder<unknown>): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from events e where e.created_at < ${cutoff}
        and not exists (select 1 from deliveries d where d.event_id = e.id and not ${prunable})`.execute(db);
    return count(rows);
  }

  /** Bodies the walk would clear: attempts after the walk's position, old enough, whose delivery stays. */
  async countBodies(db: Executor, after: string, cutoff: number, prunable: RawBuilder<unknown>): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from delivery_attempts a
      where a.id > ${after} and a.started_at < ${cutoff} and a.response_body is not null
        and not exists (select 1 from deliveries d where d.id = a.delivery_id and ${prunable})`.execute(db);
    return count(rows);
  }

  /** Rows of the small tables a prune would remove: the conditions of deleteBelow, deleteLinks and deleteChanges. */
  async countBelow(
    db: Executor,
    table: 'delivery_stats' | 'idempotency_keys' | 'web_sessions',
    column: string,
    bound: number,
    inclusive = false,
  ): Promise<number> {
    const op = sql.raw(inclusive ? '<=' : '<');
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} ${op} ${bound}`.execute(db);
    return count(rows);
  }

  async countLinks(db: Executor, now: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from portal_links where used_at is not null or expires_at < ${now}`.execute(db);
    return count(rows);
  }

  async countChanges(db: Executor, log: ChangeLogName, before: number): Promise<number> {
    const t = sql.table(log);
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from ${t} where changed_at < ${before} and id < (select max(id) from ${t})`.execute(db);
    return count(rows);
  }

  /** Refreshes the planner's statistics (and the storage view's estimates) of tables that lost many rows. */
  async analyze(db: Executor, tables: readonly BoundedTable[]): Promise<void> {
    await this.dialect.analyze(db, tables);
  }
}

function batchOf(rows: readonly { id: string; created_at: number }[]): Batch {
  const last = rows.at(-1);
  return {
    ids: rows.map((row) => row.id),
    last: last === undefined ? undefined : { created: Number(last.created_at), id: last.id },
  };
}
