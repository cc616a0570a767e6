/**
 * The feed's SQL. Positions (`events.seq`) are given in the order events become visible
 * (feed-sequence.ts), so reading `seq > after` in order never skips an event that commits later; the
 * head is the counter `event_sequence.last`. On PostgreSQL a reader first stamps what committed but has
 * no position yet (the sequencer of the node that wrote it normally has, within milliseconds).
 */
import { sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';
import { stampCommitted } from './feed-sequence.js';

export interface FeedRow {
  id: string;
  name: string;
  payload: string;
  created_at: number;
  seq: number;
}

export interface FeedFilter {
  /** Canonical event names the reader may and wants to see. */
  readonly names: readonly string[];
  /** Operational events (subscription.*) are shown only when they name a subscription of this client. */
  readonly clientRef: string;
}

export class FeedStore {
  /** One stamping at a time per process: concurrent readers share it. */
  private stamping: Promise<number> | undefined;

  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
  ) {}

  /** The newest position given; on PostgreSQL after stamping the committed events that had none. */
  async head(): Promise<number> {
    const { rows } = await sql<{ last: string; unstamped: boolean | number }>`
      select last, ${this.dialect.serialWriters ? sql`0` : sql`exists (select 1 from events where seq is null)`} as unstamped
      from event_sequence where id = 1`.execute(this.db);
    const row = rows[0];
    if (row === undefined) throw new Error('event_sequence has no row (migration 0016)');
    if (row.unstamped !== true) return Number(row.last);
    this.stamping ??= stampCommitted(this.db, this.dialect).finally(() => {
      this.stamping = undefined;
    });
    await this.stamping;
    const after = await sql<{ last: string }>`select last from event_sequence where id = 1`.execute(this.db);
    return Number(after.rows[0]?.last ?? row.last);
  }

  /** Up to `limit` events after `after` and at most `upTo`, in feed order, that pass the filter. */
  async page(after: number, upTo: number, filter: FeedFilter, limit: number): Promise<FeedRow[]> {
    if (filter.names.length === 0 || upTo <= after) return [];
    const own = filter.names.some((name) => name.startsWith('subscription.'))
      ? sql`and (e.resource <> 'subscription' or exists (
          select 1 from subscriptions s where s.id = e.identifier and s.client_ref = ${filter.clientRef}))`
      : sql``;
    const { rows } = await sql<FeedRow>`
      select e.id, e.name, e.payload, e.created_at, e.seq from events e
      where e.seq > ${after} and e.seq <= ${upTo} and e.name in (${sql.join(filter.names)}) ${own}
      order by e.seq limit ${limit}`.execute(this.db);
    return rows.map((row) => ({ ...row, created_at: Number(row.created_at), seq: Number(row.seq) }));
  }

  /** When the oldest event still kept was recorded (where the feed now starts); undefined when none is. */
  async oldest(): Promise<number | undefined> {
    const { rows } = await sql<{ at: number | null }>`select min(created_at) as at from events`.execute(this.db);
    const at = rows[0]?.at;
    return at === null || at === undefined ? undefined : Number(at);
  }
}
