/**
 * Claiming due deliveries under a lease. One statement per claim, so two workers (threads, processes
 * or nodes) never hold the same delivery at once; an expired lease is simply claimable again, which
 * is the whole crash recovery.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Db, Dialect } from '../../db/database.js';
import { loadContexts } from './context.js';
import { bookkeeping, type ClaimedBatch, type ClaimedDelivery, type ClaimOptions, type Executor } from './types.js';

/**
 * The claim as data-modifying CTEs ending in `claimed` (the leased rows). A subscription never holds
 * more than `perSubscription` of the claimer's leases: the due rows are ranked per subscription after
 * the leases the claimer already holds (`busy`, from `held`), so one slow receiver cannot take every
 * slot. Which due rows are looked at depends on
 * `reach` (types.ts): the first `scan` of them (`window`), or the first `scan` of those whose
 * subscription is below its cap (`past-capped`), which walks every row of the capped ones first. In
 * a drain with every subscription at its cap most of the time, the second walked the whole backlog on
 * every claim, and a claim that walks the whole backlog costs more the deeper it is; the window's cost
 * does not grow with the backlog (docs/performance.md#decisions).
 * On PostgreSQL the rows are locked with SKIP LOCKED and re-checked, so concurrent claimers split
 * the work; SQLite runs the statement under its single write lock. The claim sets only unindexed
 * columns, which makes it a HOT update on PostgreSQL (migration 0011).
 * The SQL text depends only on the lane, the reach and the dialect (values are parameters), so it
 * can be prepared once.
 */
function claimUpdate(dialect: Dialect, options: ClaimOptions, returning: RawBuilder<unknown>): RawBuilder<unknown> {
  const { owner, now, leaseMs, limit, perSubscription } = options;
  const pastCapped = (options.reach ?? 'past-capped') === 'past-capped';
  // The window is four rows per row wanted: enough to reach past a few capped subscriptions, and what
  // a claim costs grows with it (ranking and sorting the window). Measured with bench/db-costs.ts: eight
  // rows per row wanted cost both engines more a claim than four, and larger claims gain less from the
  // smaller window (docs/performance.md#decisions).
  const scan = pastCapped ? Math.max(limit * 4, 64) : Math.max(limit * 4, 128);
  const skipCapped = pastCapped
    ? sql`and subscription_id not in (select subscription_id from busy where n >= ${perSubscription})`
    : sql``;
  const lane: RawBuilder<unknown> = options.lane === 'first' ? sql`attempt_count = 0` : sql`attempt_count > 0`;
  // The re-check looks the few ranked ids up by key, not every pending row through the status index,
  // which would make a claim cost more the deeper the backlog.
  const pending = dialect.unindexed('status');
  // Rows due at the same time go in the order the due indexes end with: in id order a claim picked a
  // fan-out's deliveries (sharing their due millisecond) all over it on SQLite, each on a page of its
  // own that the commit then wrote; in insertion order a claim and a group commit write fewer WAL
  // pages and take less time and CPU a delivery (bench/db-costs.ts; docs/performance.md#decisions).
  const seq = dialect.deliveriesDueOrder;
  const picked = sql`
      select id from deliveries
      where id in (
        select id from (
          select due.id, due.next_attempt_at, due.seq,
                 row_number() over (partition by due.subscription_id order by due.next_attempt_at, due.seq) + coalesce(busy.n, 0) as rank
          from (
            select id, subscription_id, next_attempt_at, ${seq} as seq from deliveries
            where status = 'pending' and ${lane} and next_attempt_at <= ${now} and (lease_until is null or lease_until < ${now})
              ${skipCapped}
            order by next_attempt_at, ${seq}
            limit ${scan}
          ) as due
          left join busy on busy.subscription_id = due.subscription_id
        ) as ranked
        where rank <= ${perSubscription}
        order by next_attempt_at, seq
        limit ${limit}
      )
      and ${pending} = 'pending' and (lease_until is null or lease_until < ${now})
      ${dialect.skipLocked}`;
  return sql`
    update deliveries set lease_owner = ${owner}, lease_until = ${now + leaseMs}, updated_at = ${now}
    where id ${dialect.inSubquery(picked)}
    returning ${returning}`;
}

/** The claimer's own leases per subscription, as the CTE `busy (subscription_id, n)`. */
function busy(dialect: Dialect, held: ReadonlyMap<string, number> = new Map()): RawBuilder<unknown> {
  return dialect.keyCounts('busy', ['subscription_id', 'n'], held);
}

/** Leases up to `limit` due deliveries of one lane. */
export function claim(db: Db, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  return claimOn(bookkeeping(db), db.dialect, options);
}

async function claimOn(executor: Executor, dialect: Dialect, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const query = sql<ClaimedDelivery>`with ${busy(dialect, options.held)}
    ${claimUpdate(dialect, options, sql`id, event_id, subscription_id, attempt_count`)}`;
  const result = await query.execute(executor);
  return result.rows.map((row) => ({ ...row, attempt_count: Number(row.attempt_count) }));
}

interface ClaimedRow {
  id: string;
  attempt_count: number;
  created_at: number;
  subscription_id: string;
  event_name: string | null;
  event_id: string;
  payload: string | null;
  subscription_status: string | null;
  notification_url: string | null;
  /** Null when the client is gone. */
  webhook_secret: string | null;
  previous_webhook_secret: string | null;
  previous_webhook_secret_expires_at: number | null;
}

/**
 * Leases up to `limit` due deliveries of one lane with everything needed to send them. With
 * data-modifying CTEs and prepared statements (PostgreSQL): one named prepared statement (the claim,
 * then the event, subscription and client's webhook secrets joined to the leased rows). Without
 * (SQLite): the claim and one read, in one transaction.
 */
export async function claimToSend(db: Db, options: ClaimOptions): Promise<ClaimedBatch> {
  if (options.limit <= 0) return { contexts: [], orphans: [] };
  if (!db.dialect.writableCtes || db.prepared === undefined) {
    return db.kysely.transaction().execute(async (trx) => {
      const claimed = await claimOn(trx, db.dialect, options);
      const contexts = await loadContexts(
        trx,
        claimed.map((row) => row.id),
      );
      const found = new Set(contexts.map((context) => context.id));
      return { contexts, orphans: claimed.filter((row) => !found.has(row.id)).map((row) => row.id) };
    });
  }
  const compiled = sql`with ${busy(db.dialect, options.held)},
    claimed as (${claimUpdate(db.dialect, options, sql`id, event_id, subscription_id, attempt_count, created_at`)})
    select claimed.id, claimed.attempt_count, claimed.created_at, claimed.subscription_id, claimed.event_id, e.name as event_name, e.payload,
           s.status as subscription_status, s.notification_url,
           c.webhook_secret, c.previous_webhook_secret, c.previous_webhook_secret_expires_at
    from claimed
    left join events e on e.id = claimed.event_id
    left join subscriptions s on s.id = claimed.subscription_id
    left join clients c on c.id = s.client_ref`.compile(db.kysely);
  const rows = await db.prepared<ClaimedRow>(
    `shelfmark_claim_${options.lane}_${options.reach ?? 'past-capped'}`,
    compiled.sql,
    compiled.parameters,
  );
  const batch: ClaimedBatch = { contexts: [], orphans: [] };
  for (const row of rows) {
    const { event_name, payload, subscription_status, notification_url, webhook_secret } = row;
    // Its event, subscription or client is gone: ended unsent by the worker.
    if (
      event_name === null ||
      payload === null ||
      subscription_status === null ||
      notification_url === null ||
      webhook_secret === null
    ) {
      batch.orphans.push(row.id);
      continue;
    }
    batch.contexts.push({
      id: row.id,
      attemptCount: Number(row.attempt_count),
      eventName: event_name,
      eventId: row.event_id,
      payload,
      subscriptionId: row.subscription_id,
      subscriptionStatus: subscription_status,
      notificationUrl: notification_url,
      secrets: {
        current: webhook_secret,
        previous: row.previous_webhook_secret,
        previousUntil: row.previous_webhook_secret_expires_at,
      },
      createdAt: Number(row.created_at),
    });
  }
  return batch;
}
