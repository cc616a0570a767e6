/**
 * Which active subscriptions receive a batch of events, in ONE statement per batch whatever the
 * number of subscriptions: subscriptions without a filter match by event name; offer-event
 * subscriptions with a filter are joined on it in SQL — an {"eans"} filter on its rows in
 * subscription_filter_eans, a {"list"} filter on the list's CURRENT items (its JSON, unnested by the
 * engine's JSON functions), so a later edit of the list changes what the subscription receives.
 * Only the EANs of the batch are looked at, so the answer is at most subscriptions × batch EANs.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';
import type { DomainEvent } from './catalogue.js';

interface Match {
  id: string;
  event: string;
  /** null: the subscription has no filter and takes every event of its name. */
  ean: string | null;
}

/** The item EANs of a list `l` as a table `j`: `from` joins it, `ean` is an item's EAN. */
export function listItemEans(dialect: Dialect): { from: RawBuilder<unknown>; ean: RawBuilder<unknown> } {
  const items = dialect.jsonElements('l.items', 'j');
  return { from: items.from, ean: items.field('ean') };
}

/**
 * Looks up the subscriptions of these events and answers, per event, the ids of those that take it.
 * Without EANs in the batch (school and list events) the filter branches are left out entirely.
 */
export async function matchingSubscriptions(
  trx: Executor,
  events: readonly DomainEvent[],
  dialect: Dialect,
): Promise<(event: DomainEvent) => string[]> {
  const names = sql.join([...new Set(events.map((event) => event.name))]);
  const eanValues = [...new Set(events.flatMap((event) => (event.ean === undefined ? [] : [event.ean])))];
  const branches = [
    sql`select s.id, s.event, null as ean from subscriptions s
        where s.event in (${names}) and s.status = 'active' and s.filter is null`,
  ];
  if (eanValues.length > 0) {
    const eans = sql.join(eanValues);
    const items = listItemEans(dialect);
    branches.push(
      sql`select s.id, s.event, f.ean from subscriptions s
          inner join subscription_filter_eans f on f.subscription_id = s.id
          where s.event in (${names}) and s.status = 'active' and f.ean in (${eans})`,
      sql`select s.id, s.event, ${items.ean} as ean from subscriptions s
          inner join lists l on l.identifier = s.filter_list
          cross join ${items.from}
          where s.event in (${names}) and s.status = 'active' and ${items.ean} in (${eans})`,
    );
  }
  const { rows } = await sql<Match>`${sql.join(branches, sql` union all `)}`.execute(trx);
  const everything = new Map<string, string[]>();
  const byEan = new Map<string, string[]>();
  for (const row of rows) {
    const key = row.ean === null ? row.event : `${row.event} ${row.ean}`;
    const target = row.ean === null ? everything : byEan;
    const ids = target.get(key) ?? [];
    if (!ids.includes(row.id)) ids.push(row.id);
    target.set(key, ids);
  }
  return (event) => [
    ...(everything.get(event.name) ?? []),
    ...(event.ean === undefined ? [] : (byEan.get(`${event.name} ${event.ean}`) ?? [])),
  ];
}
