/**
 * Subscription filters: a subscription to an offer event may take only the offers of some
 * EANs, `{"eans": [...]}` (1–500 valid codes), or of a list's current items, `{"list": "<identifier>"}`.
 * Checked here, stored as echoed JSON plus the columns the outbox joins on (events/fan-out.ts).
 */
import type { Executor } from '../db/database.js';
import type { SubscriptionRow } from '../db/schema.js';
import type { EventName } from '../events/catalogue.js';
import { isResourceIdentifier } from '../ids.js';
import { ListStore } from '../lml/list-store.js';
import { Problem } from '../problems/catalogue.js';
import { type InvalidEan, invalidEanProblem, validateEan } from '../vocabulary/ean.js';
import { FILTERABLE, type SubscriptionFilter } from './filter-schema.js';

/** What a filter stores: the echoed JSON, the list it follows, the EANs it names. */
export interface StoredFilter {
  json: string | null;
  list: string | null;
  eans: readonly string[];
}

const NO_FILTER: StoredFilter = { json: null, list: null, eans: [] };

const fieldError = (path: string, detail: string): Problem =>
  new Problem('validation-failed', detail, { errors: [{ location: 'body', path, message: detail }] });

/**
 * Checks a filter for `event` and gives what to store. A filter on a non-offer event and an unknown
 * list are 400 validation-failed problems naming the field; bad EANs are 400 invalid-ean listing each.
 */
export async function checkFilter(
  db: Executor,
  event: EventName,
  filter: SubscriptionFilter | undefined,
): Promise<StoredFilter> {
  if (filter === undefined) return NO_FILTER;
  if (!FILTERABLE.includes(event))
    throw fieldError('/filter', `a filter applies to offer events only (${FILTERABLE.join(', ')}), not to ${event}`);
  if ('eans' in filter) {
    const eans = [...new Set(filter.eans.map((ean) => ean.trim()))];
    const invalid: InvalidEan[] = [];
    for (const ean of eans) {
      const check = validateEan(ean);
      if (!check.valid) invalid.push({ ean, reason: check.reason });
    }
    if (invalid.length > 0) throw invalidEanProblem(invalid);
    return { json: JSON.stringify({ eans }), list: null, eans };
  }
  const list = filter.list.trim();
  const found = isResourceIdentifier(list) && (await new ListStore(db).exists(list));
  if (!found) throw fieldError('/filter/list', `filter.list "${list.slice(0, 64)}" is not the identifier of a list`);
  return { json: JSON.stringify({ list }), list, eans: [] };
}

/** The filter as the subscription record echoes it. */
export function filterView(row: Pick<SubscriptionRow, 'filter'>): { filter?: SubscriptionFilter } {
  return row.filter === null ? {} : { filter: JSON.parse(row.filter) as SubscriptionFilter };
}
