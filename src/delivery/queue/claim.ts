/**
 * Claiming due deliveries under a lease. One statement per claim, so two workers (threads, processes
 * or nodes) never hold the same delivery at once; an expired lease is simply claimable again, which
 * is the whole crash recovery.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { bookkeeping, type ClaimedDelivery, type ClaimOptions } from './types.js';

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
export async function claim(db: Db, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  const { owner, now, leaseMs, limit, perSubscription } = options;
  if (limit <= 0) return [];
  const scan = Math.max(limit * 4, 64);
  const lane: RawBuilder<unknown> = options.lane === 'first' ? sql`attempt_count = 0` : sql`attempt_count > 0`;
  const lock = db.engine === 'postgres' ? sql`for update skip locked` : sql``;
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
  const result = await query.execute(bookkeeping(db));
  return result.rows.map((row) => ({ ...row, attempt_count: Number(row.attempt_count) }));
}
