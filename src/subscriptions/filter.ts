/**
 * Subscription filters (issue 16): a subscription to an offer event may take only the offers of some
 * EANs, `{"eans": [...]}` (1–500 valid codes), or of a list's current items, `{"list": "<identifier>"}`.
 * Checked here, stored as echoed JSON plus the columns the outbox joins on (events/fan-out.ts).
 */
import { type Static, Type } from '@sinclair/typebox';
import type { Executor } from '../db/database.js';
import type { SubscriptionRow } from '../db/schema.js';
import { Problem } from '../errors.js';
import { EVENT_NAMES, EVENTS, type EventName } from '../events/catalogue.js';
import { isResourceIdentifier } from '../ids.js';
import { type InvalidEan, invalidEanProblem, validateEan } from '../offers/ean.js';

export const MAX_FILTER_EANS = 500;

/** The events a filter may be put on: those about offers. */
const FILTERABLE: readonly EventName[] = EVENT_NAMES.filter((name) => EVENTS[name].resource === 'offer');

export const FilterSchema = Type.Union(
  [
    Type.Object(
      {
        eans: Type.Array(Type.String({ maxLength: 32 }), {
          minItems: 1,
          maxItems: MAX_FILTER_EANS,
          description: 'Only offers with one of these EAN codes (EAN-8, EAN-13/ISBN-13, GTIN-14)',
          examples: [['9789001891442', '9780194837125']],
        }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        list: Type.String({
          maxLength: 64,
          description:
            "Only offers for the items of this list (its 32-hex identifier); follows the list's current items",
          examples: ['0f3c2a9be1d84c6f9a0b7c1d2e3f4a5b'],
        }),
      },
      { additionalProperties: false },
    ),
  ],
  {
    $id: 'SubscriptionFilter',
    description: `Offer events only (${FILTERABLE.join(', ')}): deliver only the events of matching offers. Without a filter, every event.`,
  },
);

export type SubscriptionFilter = Static<typeof FilterSchema>;

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
  const found =
    isResourceIdentifier(list) &&
    (await db.selectFrom('lists').select('identifier').where('identifier', '=', list).executeTakeFirst()) !== undefined;
  if (!found) throw fieldError('/filter/list', `filter.list "${list.slice(0, 64)}" is not the identifier of a list`);
  return { json: JSON.stringify({ list }), list, eans: [] };
}

/** The filter as the subscription record echoes it. */
export function filterView(row: Pick<SubscriptionRow, 'filter'>): { filter?: SubscriptionFilter } {
  return row.filter === null ? {} : { filter: JSON.parse(row.filter) as SubscriptionFilter };
}
