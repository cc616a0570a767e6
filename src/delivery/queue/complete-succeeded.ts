/**
 * Recording successful attempts, the common case, for a whole batch at once: the deliveries whose
 * lease still holds are completed, their attempts inserted and their subscriptions marked healthy.
 * Each completion checks its own lease (the owner travels with its row), so one lost lease does not
 * affect the others. One statement where data-modifying CTEs are at hand (PostgreSQL), else one per
 * table (SQLite).
 */
import { CompiledQuery, sql } from 'kysely';
import type { Dialect } from '../../db/database.js';
import { addStats, HOUR_MS, STATS_SHARD } from '../stats.js';
import { attemptRow, type Completion, type Executor } from './types.js';

/** How stale a subscription's recorded last success may be (see healthChanged). */
export const LAST_SUCCESS_RESOLUTION_MS = 60_000;

/** Returns the ids of the deliveries recorded; `healthy` says which subscriptions to mark healthy. */
export async function completeSucceeded(
  db: Executor,
  dialect: Dialect,
  inputs: readonly Completion[],
  healthy: (subscriptionId: string) => boolean,
): Promise<Set<string>> {
  if (inputs.length === 0) return new Set();
  return dialect.writableCtes ? inOneStatement(runOn(db), inputs, healthy) : perTable(db, inputs, healthy);
}

/**
 * Which subscriptions a batch's successes write to: a healthy one (its latest attempt in the batch
 * succeeded) that was failing, or any whose last success is unset or over a minute old. So the last
 * success is exact to the minute, and a busy subscription's row is written once a minute, not once a
 * batch (`h` is the batch's subscriptions, `s` the row).
 */
const healthChanged = (
  now: string,
): string => `(h.healthy and (s.failing_since is not null or s.consecutive_failures > 0))
    or s.last_success_at is null or s.last_success_at < ${now} - ${LAST_SUCCESS_RESOLUTION_MS}`;

/**
 * PostgreSQL: one statement (data-modifying CTEs), all or nothing. The batch travels as one array per
 * column (`unnest`), so the text is the same for every batch size and is prepared once per connection.
 */
const ON_POSTGRES = `
  with v as (
    select * from unnest($1::text[], $2::text[], $3::text[], $4::integer[], $5::integer[], $6::bigint[], $7::integer[],
                         $8::text[], $9::bigint[], $10::text[], $11::boolean[])
      as v (delivery_id, owner, attempt_id, attempt_no, status_code, started_at, duration_ms, response_body, finished_at, subscription_id, healthy)
  ),
  done as (
    update deliveries
    set status = 'succeeded', attempt_count = v.attempt_no, next_attempt_at = v.finished_at, lease_owner = null, lease_until = null,
        last_status_code = v.status_code, last_error_class = null, updated_at = v.finished_at, completed_at = v.finished_at
    from v
    where deliveries.id = v.delivery_id and deliveries.lease_owner = v.owner and deliveries.status = 'pending'
    returning deliveries.id
  ),
  attempts as (
    insert into delivery_attempts (id, delivery_id, attempt_no, started_at, duration_ms, status_code, error_class, error_message, response_body)
    select v.attempt_id, v.delivery_id, v.attempt_no, v.started_at, v.duration_ms, v.status_code, null, null, v.response_body
    from v join done on done.id = v.delivery_id
  ),
  health as (
    update subscriptions s
    set failing_since = case when h.healthy then null else s.failing_since end,
        consecutive_failures = case when h.healthy then 0 else s.consecutive_failures end,
        updated_at = case when h.healthy and s.failing_since is not null then $12::bigint else s.updated_at end,
        last_success_at = $12::bigint
    from (select v.subscription_id, bool_or(v.healthy) as healthy from v join done on done.id = v.delivery_id
          group by v.subscription_id) h
    where s.id = h.subscription_id and (${healthChanged('$12::bigint')})
  ),
  stats as (
    insert into delivery_stats as t (hour, shard, attempts_ok, attempts_failed, succeeded, failed)
    select $12::bigint - ($12::bigint % ${HOUR_MS}), $13::integer, count(*), 0, count(*), 0 from done having count(*) > 0
    on conflict (hour, shard) do update
    set attempts_ok = t.attempts_ok + excluded.attempts_ok, succeeded = t.succeeded + excluded.succeeded
  )
  select id from done`;

/** Runs a statement: a named prepared one on the bookkeeping connections, or plain text in a transaction. */
export type Run = (name: string, text: string, values: readonly unknown[]) => Promise<{ id: string }[]>;

/** Runs on the given executor (an open transaction), as unnamed text. */
export function runOn(db: Executor): Run {
  return async (_name, text, values) =>
    (await db.executeQuery<{ id: string }>(CompiledQuery.raw(text, [...values]))).rows;
}

export async function inOneStatement(
  run: Run,
  inputs: readonly Completion[],
  healthy: (subscriptionId: string) => boolean,
): Promise<Set<string>> {
  if (inputs.length === 0) return new Set();
  const rows = inputs.map((input) => ({ input, row: attemptRow(input) }));
  const column = <T>(pick: (entry: (typeof rows)[number]) => T): T[] => rows.map(pick);
  const result = await run('shelfmark_complete_succeeded', ON_POSTGRES, [
    column(({ input }) => input.id),
    column(({ input }) => input.owner),
    column(({ row }) => row.id),
    column(({ input }) => input.attempt.attemptNo),
    column(({ input }) => input.attempt.statusCode),
    column(({ row }) => row.started_at),
    column(({ row }) => row.duration_ms),
    column(({ row }) => row.response_body ?? null),
    column(({ input }) => input.now),
    column(({ input }) => input.subscriptionId),
    column(({ input }) => healthy(input.subscriptionId)),
    Math.max(...inputs.map((input) => input.now)),
    STATS_SHARD,
  ]);
  return new Set(result.map((row) => row.id));
}

/**
 * SQLite: one statement per table, in the caller's transaction. The batch travels as one JSON
 * parameter read with `jsonb_each`, so each statement's text is the same for every batch size and
 * stays prepared (the connection's statement cache, db/database.ts), and Kysely compiles a single
 * parameter instead of one per column and row. `jsonb_each` hands each row's array over already
 * parsed: with `json_each` every `->>` parsed the row's text again, once per column of every row
 * (docs/performance.md#decisions).
 */
async function perTable(
  db: Executor,
  inputs: readonly Completion[],
  healthy: (subscriptionId: string) => boolean,
): Promise<Set<string>> {
  const batch = JSON.stringify(
    inputs.map((input) => [input.id, input.owner, input.attempt.attemptNo, input.attempt.statusCode, input.now]),
  );
  // Materialised, so the planner walks the batch and looks each delivery up by key (not the other way round).
  const updated = await sql<{ id: string }>`
    with v as materialized (
      select value ->> 0 as delivery_id, value ->> 1 as owner, value ->> 2 as attempt_no, value ->> 3 as status_code,
             value ->> 4 as finished_at from jsonb_each(${batch})
    )
    update deliveries
    set status = 'succeeded', attempt_count = v.attempt_no, next_attempt_at = v.finished_at, lease_owner = null, lease_until = null,
        last_status_code = v.status_code, last_error_class = null, updated_at = v.finished_at, completed_at = v.finished_at
    from v
    where deliveries.id = v.delivery_id and deliveries.lease_owner = v.owner and deliveries.status = 'pending'
    returning deliveries.id`.execute(db);
  const recorded = new Set(updated.rows.map((row) => row.id));
  const written = inputs.filter((input) => recorded.has(input.id));
  if (written.length === 0) return recorded;
  const attempts = JSON.stringify(
    written.map((input) => {
      const row = attemptRow(input);
      return [
        row.id,
        row.delivery_id,
        row.attempt_no,
        row.started_at,
        row.duration_ms,
        row.status_code,
        row.response_body,
      ];
    }),
  );
  await sql`
    insert into delivery_attempts (id, delivery_id, attempt_no, started_at, duration_ms, status_code, error_class, error_message, response_body)
    select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, null, null, value ->> 6
    from jsonb_each(${attempts})`.execute(db);
  const now = Math.max(...written.map((input) => input.now));
  const subscriptions = [...new Set(written.map((input) => input.subscriptionId))];
  const batchHealth = JSON.stringify(subscriptions.map((id) => [id, healthy(id) ? 1 : 0, now]));
  await sql`
    update subscriptions as s
    set failing_since = case when h.healthy then null else s.failing_since end,
        consecutive_failures = case when h.healthy then 0 else s.consecutive_failures end,
        updated_at = case when h.healthy and s.failing_since is not null then ${now} else s.updated_at end,
        last_success_at = ${now}
    from (select value ->> 0 as subscription_id, value ->> 1 as healthy, value ->> 2 as now from json_each(${batchHealth})) as h
    where s.id = h.subscription_id and (${sql.raw(healthChanged('h.now'))})`.execute(db);
  await addStats(db, now, { attemptsOk: written.length, succeeded: written.length });
  return recorded;
}
