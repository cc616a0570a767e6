/**
 * Which deliveries make one page of the delivery log, without walking the history: the page is
 * merged from bounded walks, each reading at most limit + 1 keys down an index in (created_at, id)
 * order. Without a subscription filter: one walk per status, down deliveries_finished for a finished
 * status and the due indexes for the queue (pending rows are the queue, bounded by the backlog). When
 * the filter names at most MERGE_SUBSCRIPTIONS subscriptions: one walk per subscription down
 * deliveries_subscription (every status, or succeeded ones), or deliveries_subscription_failed; their
 * pending rows come from the due indexes. The per-subscription index has no status, so a completion
 * leaves it alone (migration 0017).
 */
import { type SqlBool, sql } from 'kysely';
import type { Db } from '../db/database.js';
import { afterCursor } from '../vocabulary/paging.js';
import { DELIVERY_STATUSES } from './model.js';

export interface DeliveryFilter {
  status?: string | undefined;
  subscriptionId?: string | undefined;
  event?: string | undefined;
  /** Restrict to one client's subscriptions. */
  clientRef?: string | undefined;
  /** Created at or after / before these instants (epoch ms). */
  createdFrom?: number | undefined;
  createdBefore?: number | undefined;
}

/** The last row of the previous page. */
type Cursor = { id: string; created_at: number };

/** Up to this many subscriptions, a filtered page walks each one's index range; beyond, one walk per status. */
const MERGE_SUBSCRIPTIONS = 32;

/** The due lanes split the queue the way its partial indexes do (migration 0009). */
type Lane = 'first' | 'retry' | undefined;
const LANES: Lane[] = ['first', 'retry'];

interface Walk {
  /** Undefined: every status (a walk of one subscription's index). */
  status: string | undefined;
  lane: Lane;
  subscriptions: readonly string[] | undefined;
  /** A walk down one subscription's own index (deliveries_subscription or its failed part). */
  bySubscription?: true;
}

/**
 * The ids of the page (limit + 1 at most, newest first), within `subscriptions` when the filter names
 * them (undefined: all).
 */
export async function pageKeys(
  db: Db,
  filter: DeliveryFilter,
  subscriptions: readonly string[] | undefined,
  limit: number,
  after?: Cursor,
): Promise<string[]> {
  const statuses = filter.status === undefined ? DELIVERY_STATUSES : [filter.status];
  const perSubscription = subscriptions !== undefined && subscriptions.length <= MERGE_SUBSCRIPTIONS;
  const walks: Walk[] = [];
  if (perSubscription && filter.status !== 'pending') {
    for (const id of subscriptions)
      walks.push({ status: filter.status, lane: undefined, subscriptions: [id], bySubscription: true });
  } else {
    for (const status of statuses) {
      if (status === 'pending') for (const lane of LANES) walks.push({ status, lane, subscriptions });
      else walks.push({ status, lane: undefined, subscriptions });
    }
  }
  const k = db.kysely;
  const branches = walks.map((walk, index) =>
    k.selectFrom(walkOf(db, walk, filter, limit + 1, after).as(`w${index}`)).selectAll(),
  );
  const [first, ...rest] = branches;
  if (first === undefined) return [];
  const merged = rest.reduce((union, branch) => union.unionAll(branch), first);
  const keys = await k
    .selectFrom(merged.as('m'))
    .select('m.id')
    .orderBy('m.created_at', 'desc')
    .orderBy('m.id', 'desc')
    .limit(limit + 1)
    .execute();
  return keys.map((key) => key.id);
}

/** One bounded walk: the newest `take` keys of one status (and lane or subscriptions) after the cursor. */
function walkOf(db: Db, walk: Walk, filter: DeliveryFilter, take: number, after?: Cursor) {
  let query = db.kysely.selectFrom('deliveries as d').select(['d.id', 'd.created_at']);
  const subscriptions = walk.subscriptions;
  if (walk.status !== undefined) query = query.where('d.status', '=', walk.status);
  // The literal terms each partial index is defined by, which SQLite needs to see to use the index.
  if (walk.status === 'pending') {
    query = query.where(sql<SqlBool>`d.status = 'pending'`);
    query = query.where(walk.lane === 'first' ? sql<SqlBool>`d.attempt_count = 0` : sql<SqlBool>`d.attempt_count > 0`);
    // The queue, walked whole: the subscriptions are matched as an expression, so neither engine
    // walks deliveries_subscription instead, whose pending rows may sit behind the whole history.
    if (subscriptions !== undefined)
      query = query.where(
        sql<SqlBool>`(d.subscription_id || '') in (${sql.join(subscriptions.map((id) => sql`${id}`))})`,
      );
  } else if (walk.bySubscription === true) {
    if (walk.status === 'failed') query = query.where(sql<SqlBool>`d.status = 'failed'`);
    query = query.where('d.subscription_id', 'in', subscriptions ?? []);
  } else {
    query = query.where(sql<SqlBool>`d.status <> 'pending'`);
    if (subscriptions !== undefined) query = query.where('d.subscription_id', 'in', subscriptions);
  }
  const event = filter.event;
  if (event !== undefined)
    query = query.where((eb) =>
      eb.exists(
        eb.selectFrom('events as e').select('e.id').whereRef('e.id', '=', 'd.event_id').where('e.name', '=', event),
      ),
    );
  if (filter.createdFrom !== undefined) query = query.where('d.created_at', '>=', filter.createdFrom);
  if (filter.createdBefore !== undefined) query = query.where('d.created_at', '<', filter.createdBefore);
  if (after !== undefined) {
    const cursor = { created: after.created_at, id: after.id };
    query = query.where((eb) => afterCursor(eb, { created: 'd.created_at', id: 'd.id' }, cursor, '<'));
  }
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(take);
}
