/**
 * SQL of the delivery engine: claiming due deliveries under a lease, and recording an attempt with
 * the delivery's outcome. Claims are one statement each, so two workers (threads, processes or
 * nodes) never hold the same delivery at once; an expired lease is simply claimable again, which is
 * the whole crash recovery.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { ClientRow, NewDeliveryAttempt } from '../db/schema.js';
import { ids } from '../ids.js';
import type { ErrorClass } from './sender.js';

export interface ClaimedDelivery {
  id: string;
  event_id: string;
  subscription_id: string;
  attempt_count: number;
}

/** Everything needed to send one claimed delivery. */
export interface SendContext {
  id: string;
  attemptCount: number;
  eventName: string;
  payload: string;
  subscriptionId: string;
  subscriptionStatus: string;
  notificationUrl: string;
  client: ClientRow;
  /** When the delivery was created (its event committed), for the end-to-end latency histogram. */
  createdAt: number;
}

export interface ClaimOptions {
  owner: string;
  now: number;
  leaseMs: number;
  limit: number;
  /** At most this many deliveries of one subscription leased at once (across all workers). */
  perSubscription: number;
  lane: 'first' | 'retry';
}

export interface AttemptRecord {
  attemptNo: number;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  errorClass: ErrorClass | null;
  errorMessage: string | null;
  responseBody: string | null;
}

export interface Completion {
  id: string;
  owner: string;
  subscriptionId: string;
  now: number;
  attempt: AttemptRecord;
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: number;
  /** Disable the subscription with this reason (410 Gone). */
  disableReason?: string | undefined;
  /** Disable the subscription when it has been failing since at or before this instant. */
  failingCutoff: number;
}

export interface CompletionResult {
  /** False when the lease was lost to another worker: nothing was written. */
  recorded: boolean;
  /** Deliveries (this one included) that ended as failed in this transaction. */
  failed: number;
  subscriptionDisabled: boolean;
}

export class DeliveryStore {
  constructor(private readonly db: Db) {}

  /**
   * Leases up to `limit` due deliveries of one lane. A subscription never holds more than
   * `perSubscription` leases: subscriptions already at the cap are skipped while scanning, and the
   * rest are ranked after the leases they already hold, so one slow receiver cannot take every slot
   * and the scan stays bounded (about `limit` × 4 rows) however large the backlog is. On PostgreSQL
   * the rows are locked with SKIP LOCKED and re-checked, so concurrent claimers split the work;
   * SQLite runs the statement under its single write lock. Live leases are read first, through the
   * (lease_until, subscription_id) index alone, into a materialised CTE: completion always clears the
   * lease, so a live lease is a pending row, and without the CTE planners walk every pending row.
   */
  async claim(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    const { owner, now, leaseMs, limit, perSubscription } = options;
    if (limit <= 0) return [];
    const scan = Math.max(limit * 4, 64);
    const lane: RawBuilder<unknown> = options.lane === 'first' ? sql`attempt_count = 0` : sql`attempt_count > 0`;
    const lock = this.db.engine === 'postgres' ? sql`for update skip locked` : sql``;
    const query = sql<ClaimedDelivery>`
      with leased as materialized (
        select subscription_id from deliveries where lease_until >= ${now}
      ),
      busy as (
        select subscription_id, count(*) as n from leased group by subscription_id
      )
      update deliveries set lease_owner = ${owner}, lease_until = ${now + leaseMs}, updated_at = ${now}
      where id in (
        select id from deliveries
        where id in (
          select id from (
            select due.id, due.next_attempt_at,
                   row_number() over (partition by due.subscription_id order by due.next_attempt_at, due.id) + coalesce(busy.n, 0) as rank
            from (
              select id, subscription_id, next_attempt_at from deliveries
              where status = 'pending' and ${lane} and next_attempt_at <= ${now} and (lease_until is null or lease_until < ${now})
                and subscription_id not in (select subscription_id from busy where n >= ${perSubscription})
              order by next_attempt_at, id
              limit ${scan}
            ) as due
            left join busy on busy.subscription_id = due.subscription_id
          ) as ranked
          where rank <= ${perSubscription}
          order by next_attempt_at, id
          limit ${limit}
        )
        and status = 'pending' and (lease_until is null or lease_until < ${now})
        ${lock}
      )
      returning id, event_id, subscription_id, attempt_count`;
    const result = await query.execute(this.bookkeeping);
    return result.rows.map((row) => ({ ...row, attempt_count: Number(row.attempt_count) }));
  }

  /**
   * Where the worker's own bookkeeping (leases, completions) is written: on PostgreSQL, connections
   * that do not wait for the WAL flush at commit. Should PostgreSQL itself crash, the last fraction of a
   * second of such writes may be lost: a lost lease or completion only means the delivery is claimed
   * and sent again with the same webhook-id, which at-least-once allows. Events and their deliveries
   * (the outbox) always commit synchronously, so no event can be lost that way.
   */
  private get bookkeeping(): Db['kysely'] {
    return this.db.relaxed?.() ?? this.db.kysely;
  }

  /** Loads the event, subscription and client of claimed deliveries in two queries. */
  async contexts(deliveryIds: readonly string[]): Promise<SendContext[]> {
    if (deliveryIds.length === 0) return [];
    const rows = await this.db.kysely
      .selectFrom('deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .innerJoin('subscriptions as s', 's.id', 'd.subscription_id')
      .select([
        'd.id',
        'd.attempt_count',
        'd.created_at',
        'e.name',
        'e.payload',
        's.id as subscription_id',
        's.status as subscription_status',
        's.notification_url',
        's.client_ref',
      ])
      .where('d.id', 'in', deliveryIds)
      .execute();
    const refs = [...new Set(rows.map((row) => row.client_ref))];
    const clients =
      refs.length === 0 ? [] : await this.db.kysely.selectFrom('clients').selectAll().where('id', 'in', refs).execute();
    const byRef = new Map(clients.map((client) => [client.id, client]));
    const contexts: SendContext[] = [];
    for (const row of rows) {
      const client = byRef.get(row.client_ref);
      if (client === undefined) continue;
      contexts.push({
        id: row.id,
        attemptCount: Number(row.attempt_count),
        eventName: row.name,
        payload: row.payload,
        subscriptionId: row.subscription_id,
        subscriptionStatus: row.subscription_status,
        notificationUrl: row.notification_url,
        client,
        createdAt: Number(row.created_at),
      });
    }
    return contexts;
  }

  /** Writes the attempt, the delivery's outcome and the subscription's health together. */
  async complete(input: Completion): Promise<CompletionResult> {
    const [result] = await this.completeMany([input]);
    if (result === undefined) throw new Error('completion produced no result');
    return result;
  }

  /**
   * Records several completions in one transaction: a commit costs more than the statements in it,
   * so a busy worker writes the attempts that finished meanwhile together. Successes, the common
   * case, take three statements for the whole batch (deliveries, attempts, subscription health);
   * failures take the per-row path with its retry and disable rules. Each completion still checks its
   * own lease, so one lost lease does not affect the others.
   */
  async completeMany(inputs: readonly Completion[]): Promise<CompletionResult[]> {
    if (inputs.length === 0) return [];
    if (
      this.db.engine === 'postgres' &&
      inputs.every((input) => input.status === 'succeeded' && input.owner === inputs[0]?.owner)
    ) {
      // The common case on PostgreSQL: one statement instead of three, without waiting for the WAL flush.
      const recorded = await completeSucceededInOneStatement(this.bookkeeping, inputs);
      return inputs.map((input) => ({ recorded: recorded.has(input.id), failed: 0, subscriptionDisabled: false }));
    }
    return this.db.kysely.transaction().execute(async (trx) => {
      const results = new Map<Completion, CompletionResult>();
      for (const input of inputs) {
        if (input.status !== 'succeeded') results.set(input, await completeOne(trx, input));
      }
      const successes = inputs.filter((input) => input.status === 'succeeded');
      // A subscription's health follows its latest attempt in the batch: a later failure keeps it failing.
      const lastOutcome = new Map(inputs.map((input) => [input.subscriptionId, input.status]));
      const recorded = await completeSucceeded(
        trx,
        successes,
        (subscriptionId) => lastOutcome.get(subscriptionId) === 'succeeded',
      );
      for (const input of successes)
        results.set(input, { recorded: recorded.has(input.id), failed: 0, subscriptionDisabled: false });
      return inputs.map((input) => results.get(input) ?? { recorded: false, failed: 0, subscriptionDisabled: false });
    });
  }

  /** Gives leased deliveries back unsent (worker stopping, or a queued lease that ran short). */
  async release(ids: readonly string[], owner: string, now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.kysely
      .updateTable('deliveries')
      .set({ lease_owner: null, lease_until: null, updated_at: now })
      .where('id', 'in', ids)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .execute();
  }

  /** Ends a claimed delivery without sending (its subscription is no longer active). */
  async abandon(id: string, owner: string, now: number): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('deliveries')
      .set({ status: 'failed', lease_owner: null, lease_until: null, updated_at: now, completed_at: now })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

/** Successful completions of one owner, written with one statement per table; returns the ids recorded. */
async function completeSucceeded(
  trx: Db['kysely'],
  inputs: readonly Completion[],
  healthy: (subscriptionId: string) => boolean,
): Promise<Set<string>> {
  if (inputs.length === 0) return new Set();
  const recorded = new Set<string>();
  for (const [owner, group] of groupBy(inputs, (input) => input.owner)) {
    // Per-row values through a VALUES list (casts so PostgreSQL types the parameters).
    const values = group.map(
      (input) =>
        sql`(cast(${input.id} as text), cast(${input.attempt.attemptNo} as integer), cast(${input.attempt.statusCode} as integer), cast(${input.now} as bigint))`,
    );
    const updated = await sql<{ id: string }>`
      with v (delivery_id, attempt_no, status_code, finished_at) as (values ${sql.join(values)})
      update deliveries
      set status = 'succeeded', attempt_count = v.attempt_no, next_attempt_at = v.finished_at, lease_owner = null, lease_until = null,
          last_status_code = v.status_code, last_error_class = null, updated_at = v.finished_at, completed_at = v.finished_at
      from v
      where deliveries.id = v.delivery_id and deliveries.lease_owner = ${owner} and deliveries.status = 'pending'
      returning deliveries.id`.execute(trx);
    for (const row of updated.rows) recorded.add(row.id);
  }
  const written = inputs.filter((input) => recorded.has(input.id));
  if (written.length === 0) return recorded;
  await trx
    .insertInto('delivery_attempts')
    .values(written.map((input) => attemptRow(input)))
    .execute();
  const subscriptions = [...new Set(written.map((input) => input.subscriptionId))].filter(healthy);
  if (subscriptions.length > 0) {
    const now = Math.max(...written.map((input) => input.now));
    await trx
      .updateTable('subscriptions')
      .set({ failing_since: null, updated_at: now })
      .where('id', 'in', subscriptions)
      .where('failing_since', 'is not', null)
      .execute();
  }
  return recorded;
}

/**
 * PostgreSQL: the successes of one owner in a single statement (data-modifying CTEs): the deliveries
 * whose lease still holds are completed, their attempts inserted and their subscriptions marked
 * healthy, all or nothing.
 */
async function completeSucceededInOneStatement(db: Db['kysely'], inputs: readonly Completion[]): Promise<Set<string>> {
  const owner = inputs[0]?.owner ?? '';
  const lastOutcome = new Map(inputs.map((input) => [input.subscriptionId, input.status]));
  const values = inputs.map((input) => {
    const row = attemptRow(input);
    return sql`(${input.id}::text, ${row.id}::text, ${input.attempt.attemptNo}::integer, ${input.attempt.statusCode}::integer, ${row.started_at}::bigint,
      ${row.duration_ms}::integer, ${row.response_body}::text, ${input.now}::bigint, ${input.subscriptionId}::text, ${lastOutcome.get(input.subscriptionId) === 'succeeded'}::boolean)`;
  });
  const now = Math.max(...inputs.map((input) => input.now));
  const result = await sql<{ id: string }>`
    with v (delivery_id, attempt_id, attempt_no, status_code, started_at, duration_ms, response_body, finished_at, subscription_id, healthy) as (
      values ${sql.join(values)}
    ),
    done as (
      update deliveries
      set status = 'succeeded', attempt_count = v.attempt_no, next_attempt_at = v.finished_at, lease_owner = null, lease_until = null,
          last_status_code = v.status_code, last_error_class = null, updated_at = v.finished_at, completed_at = v.finished_at
      from v
      where deliveries.id = v.delivery_id and deliveries.lease_owner = ${owner} and deliveries.status = 'pending'
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

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
}

function attemptRow(input: Completion): NewDeliveryAttempt {
  const { attempt } = input;
  return {
    id: ids.attempt(),
    delivery_id: input.id,
    attempt_no: attempt.attemptNo,
    started_at: attempt.startedAt,
    duration_ms: attempt.durationMs,
    status_code: attempt.statusCode,
    error_class: attempt.errorClass,
    error_message: attempt.errorMessage,
    response_body: attempt.responseBody,
  };
}

async function completeOne(trx: Db['kysely'], input: Completion): Promise<CompletionResult> {
  const { id, owner, now, attempt } = input;
  const updated = await trx
    .updateTable('deliveries')
    .set({
      status: input.status,
      attempt_count: attempt.attemptNo,
      next_attempt_at: input.nextAttemptAt,
      lease_owner: null,
      lease_until: null,
      last_status_code: attempt.statusCode,
      last_error_class: attempt.errorClass,
      updated_at: now,
      completed_at: input.status === 'pending' ? null : now,
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return { recorded: false, failed: 0, subscriptionDisabled: false };

  await trx.insertInto('delivery_attempts').values(attemptRow(input)).execute();

  let failed = input.status === 'failed' ? 1 : 0;
  if (input.status === 'succeeded') {
    await trx
      .updateTable('subscriptions')
      .set({ failing_since: null, updated_at: now })
      .where('id', '=', input.subscriptionId)
      .where('failing_since', 'is not', null)
      .execute();
    return { recorded: true, failed, subscriptionDisabled: false };
  }
  await trx
    .updateTable('subscriptions')
    .set({ failing_since: now, updated_at: now })
    .where('id', '=', input.subscriptionId)
    .where('failing_since', 'is', null)
    .execute();
  const reason = input.disableReason ?? 'every delivery attempt failed for 5 days';
  let disable = trx
    .updateTable('subscriptions')
    .set({ status: 'disabled', disabled_reason: reason, updated_at: now })
    .where('id', '=', input.subscriptionId)
    .where('status', '=', 'active');
  if (input.disableReason === undefined) disable = disable.where('failing_since', '<=', input.failingCutoff);
  const disabled = Number((await disable.executeTakeFirst()).numUpdatedRows) > 0;
  if (disabled) failed += await failPendingOf(trx, input.subscriptionId, now);
  return { recorded: true, failed, subscriptionDisabled: disabled };
}

/**
 * Fails the pending deliveries of a disabled subscription so they show up as failed (and can be
 * recovered) instead of waiting hours for their next retry. Rows leased by another worker are left
 * to that worker, whose completion then sees the disabled subscription on its next claim.
 */
async function failPendingOf(trx: Db['kysely'], subscriptionId: string, now: number): Promise<number> {
  const result = await trx
    .updateTable('deliveries')
    .set({ status: 'failed', updated_at: now, completed_at: now })
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
