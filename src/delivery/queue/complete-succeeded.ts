/**
 * Recording successful attempts, the common case, for a whole batch at once: the deliveries whose
 * lease still holds are completed, their attempts inserted and their subscriptions marked healthy.
 * Each completion checks its own lease (the owner travels with its row), so one lost lease does not
 * affect the others. One statement on PostgreSQL, three on SQLite (which has no data-modifying CTEs).
 */
import { sql } from 'kysely';
import type { Engine } from '../../db/database.js';
import { attemptRow, type Completion, type Executor } from './types.js';

/** Returns the ids of the deliveries recorded; `healthy` says which subscriptions to mark healthy. */
export async function completeSucceeded(
  db: Executor,
  engine: Engine,
  inputs: readonly Completion[],
  healthy: (subscriptionId: string) => boolean,
): Promise<Set<string>> {
  if (inputs.length === 0) return new Set();
  return engine === 'postgres' ? onPostgres(db, inputs, healthy) : onSqlite(db, inputs, healthy);
}

/** PostgreSQL: one statement (data-modifying CTEs), all or nothing. */
async function onPostgres(
  db: Executor,
  inputs: readonly Completion[],
  healthy: (subscriptionId: string) => boolean,
): Promise<Set<string>> {
  const values = inputs.map((input) => {
    const row = attemptRow(input);
    return sql`(${input.id}::text, ${input.owner}::text, ${row.id}::text, ${input.attempt.attemptNo}::integer, ${input.attempt.statusCode}::integer,
      ${row.started_at}::bigint, ${row.duration_ms}::integer, ${row.response_body}::text, ${input.now}::bigint, ${input.subscriptionId}::text,
      ${healthy(input.subscriptionId)}::boolean)`;
  });
  const now = Math.max(...inputs.map((input) => input.now));
  const result = await sql<{ id: string }>`
    with v (delivery_id, owner, attempt_id, attempt_no, status_code, started_at, duration_ms, response_body, finished_at, subscription_id, healthy) as (
      values ${sql.join(values)}
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
      update subscriptions set failing_since = null, updated_at = ${now}
      where id in (select v.subscription_id from v join done on done.id = v.delivery_id where v.healthy) and failing_since is not null
    )
    select id from done`.execute(db);
  return new Set(result.rows.map((row) => row.id));
}

/** SQLite: one statement per table, in the caller's transaction. */
async function onSqlite(
  db: Executor,
  inputs: readonly Completion[],
  healthy: (subscriptionId: string) => boolean,
): Promise<Set<string>> {
  // Per-row values through a VALUES list.
  const values = inputs.map(
    (input) =>
      sql`(cast(${input.id} as text), cast(${input.owner} as text), cast(${input.attempt.attemptNo} as integer), cast(${input.attempt.statusCode} as integer), cast(${input.now} as bigint))`,
  );
  const updated = await sql<{ id: string }>`
    with v (delivery_id, owner, attempt_no, status_code, finished_at) as (values ${sql.join(values)})
    update deliveries
    set status = 'succeeded', attempt_count = v.attempt_no, next_attempt_at = v.finished_at, lease_owner = null, lease_until = null,
        last_status_code = v.status_code, last_error_class = null, updated_at = v.finished_at, completed_at = v.finished_at
    from v
    where deliveries.id = v.delivery_id and deliveries.lease_owner = v.owner and deliveries.status = 'pending'
    returning deliveries.id`.execute(db);
  const recorded = new Set(updated.rows.map((row) => row.id));
  const written = inputs.filter((input) => recorded.has(input.id));
  if (written.length === 0) return recorded;
  await db
    .insertInto('delivery_attempts')
    .values(written.map((input) => attemptRow(input)))
    .execute();
  const subscriptions = [...new Set(written.map((input) => input.subscriptionId))].filter(healthy);
  if (subscriptions.length > 0) {
    const now = Math.max(...written.map((input) => input.now));
    await db
      .updateTable('subscriptions')
      .set({ failing_since: null, updated_at: now })
      .where('id', 'in', subscriptions)
      .where('failing_since', 'is not', null)
      .execute();
  }
  return recorded;
}
