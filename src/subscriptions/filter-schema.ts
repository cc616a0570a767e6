/**
 * The shape of a subscription filter on the wire: only the offers of some EANs, or of a
 * list's current items. Apart from the rules that check it (filter.ts), so the API schemas and the
 * browser pages can use it without the database.
 */
import { type Static, Type } from '@sinclair/typebox';
import { EVENT_NAMES, EVENTS, type EventName } from '../events/catalogue.js';
import { documentedAs } from '../http/documented.js';
import { EAN_PATTERN } from '../vocabulary/ean.js';

export const MAX_FILTER_EANS = 500;

/** The events a filter may be put on: those about offers. */
export const FILTERABLE: readonly EventName[] = EVENT_NAMES.filter((name) => EVENTS[name].resource === 'offer');

export const FilterSchema = Type.Union(
  [
    Type.Object(
      {
        // A bad code is the service's 400 invalid-ean naming it; the document states the shape.
        eans: Type.Array(documentedAs(Type.String({ maxLength: 32 }), { pattern: EAN_PATTERN }), {
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
