/**
 * The SQL of a replay (replay.ts): the past events a subscription matches, as the fan-out matches new
 * ones (events/fan-out.ts): its event name, its filter (an {"eans"} filter's codes, or a {"list"}
 * filter's CURRENT items), and for subscription.failing / .disabled the client's own other
 * subscriptions; then their deliveries, queued as the outbox queues them.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';
import { listItemEans } from '../events/fan-out.js';
import { newDelivery } from '../events/outbox.js';
import { ids } from '../ids.js';

/** Which past events a subscription takes. */
export interface ReplayMatch {
  event: string;
  clientRef: string;
  /** The subscription itself, once it exists (its own operational events are not its business). */
  subscriptionId: string | undefined;
  eans: readonly string[];
  list: string | null;
}

/** Where a replay starts: after a feed position, or at a time. */
export type ReplayStart = { after: number } | { since: number };

const INSERT_CHUNK = 500;

export class ReplayStore {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
  ) {}

  /**
   * The subscription's matcher and status, or undefined when it does not exist or is not the client's
   * (if one is named).
   */
  async matchOf(
    clientRef: string | undefined,
    subscriptionId: string,
  ): Promise<(ReplayMatch & { status: string }) | undefined> {
    const row = await this.db
      .selectFrom('subscriptions')
      .select(['id', 'event', 'client_ref', 'filter_list', 'status'])
      .where('id', '=', subscriptionId)
      .executeTakeFirst();
    if (row === undefined || (clientRef !== undefined && row.client_ref !== clientRef)) return undefined;
    const eans = await this.db
      .selectFrom('subscription_filter_eans')
      .select('ean')
      .where('subscription_id', '=', subscriptionId)
      .execute();
    return {
      event: row.event,
      clientRef: row.client_ref,
      subscriptionId,
      eans: eans.map((e) => e.ean),
      list: row.filter_list,
      status: row.status,
    };
  }

  /** How many events match, up to `upTo`, counting at most `cap + 1`. */
  async count(match: ReplayMatch, start: ReplayStart, upTo: number, cap: number): Promise<number> {
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from (select e.id from events e where ${this.matching(match, start, upTo)} limit ${cap + 1}) m`.execute(
      this.db,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Queues one delivery per matching event in feed order, leaving out those the subscription already
   * has a delivery of (`with-delivery`) or a pending one of (`with-pending-delivery`); answers how many. Ids sort in feed order, which is the
   * order the queue takes deliveries that are due at the same moment.
   */
  async queue(
    trx: Executor,
    match: ReplayMatch & { subscriptionId: string },
    start: ReplayStart,
    upTo: number,
    leaveOut: 'with-delivery' | 'with-pending-delivery',
    now: number,
  ): Promise<number> {
    const { rows } = await sql<{ id: string }>`
      select e.id from events e where ${this.matching(match, start, upTo)}
        and not exists (select 1 from deliveries d where d.event_id = e.id and d.subscription_id = ${match.subscriptionId}
                        ${leaveOut === 'with-pending-delivery' ? sql`and d.status = 'pending'` : sql``})
      order by e.seq`.execute(trx);
    const base = ids.delivery().slice(0, 17);
    const deliveries = rows.map((row, index) =>
      newDelivery(row.id, match.subscriptionId, now, `${base}${index.toString(36).padStart(8, '0')}`),
    );
    for (let i = 0; i < deliveries.length; i += INSERT_CHUNK)
      await trx
        .insertInto('deliveries')
        .values(deliveries.slice(i, i + INSERT_CHUNK))
        .execute();
    return deliveries.length;
  }

  private matching(match: ReplayMatch, start: ReplayStart, upTo: number): RawBuilder<unknown> {
    const from =
      'after' in start ? sql`e.seq > ${start.after}` : sql`e.seq is not null and e.created_at >= ${start.since}`;
    const parts = [sql`e.name = ${match.event}`, from, sql`e.seq <= ${upTo}`];
    if (match.eans.length > 0) parts.push(sql`e.ean in (${sql.join([...match.eans])})`);
    if (match.list !== null) {
      const items = listItemEans(this.dialect);
      parts.push(
        sql`e.ean in (select ${items.ean} from lists l cross join ${items.from} where l.identifier = ${match.list})`,
      );
    }
    if (match.event.startsWith('subscription.'))
      parts.push(
        sql`e.identifier in (select o.id from subscriptions o where o.client_ref = ${match.clientRef} and o.id <> ${match.subscriptionId ?? ''})`,
      );
    return sql.join(parts, sql` and `);
  }
}
