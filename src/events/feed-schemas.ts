/** The event feed on the wire (TypeBox): validation, serialisation and the OpenAPI document at once. */
import { Type } from '@sinclair/typebox';
import { documentedAs } from '../http/documented.js';
import { ACCEPTED_EVENT_SPELLINGS, EVENT_NAMES } from './catalogue.js';
import { DEFAULT_FEED_PAGE, MAX_FEED_PAGE, MAX_FEED_WAIT_SECONDS } from './feed.js';
import { CURSOR_PATTERN } from './feed-cursor.js';

const EVENT_NAME = `(?:${ACCEPTED_EVENT_SPELLINGS.map((name) => name.replaceAll('.', '\\.')).join('|')})`;

const CURSOR =
  "An opaque cursor: an item's `cursor` or a page's `next`. Reading after it returns the events that " +
  'became visible after it, in commit order, never one twice and never one skipped.';

export const FeedQuerySchema = Type.Object(
  {
    after: Type.Optional(
      documentedAs(
        Type.String({ maxLength: 100, description: `${CURSOR} Without it the feed starts at its oldest event kept.` }),
        { pattern: CURSOR_PATTERN },
      ),
    ),
    limit: Type.Integer({ minimum: 1, maximum: MAX_FEED_PAGE, default: DEFAULT_FEED_PAGE }),
    // The feed answers an unknown name itself (400 listing the names); the document states the shape.
    types: Type.Optional(
      documentedAs(
        Type.String({
          maxLength: 2000,
          description: `Comma-separated event names, either spelling: ${ACCEPTED_EVENT_SPELLINGS.join(', ')}. Without it every event the token may see.`,
          examples: ['list-published,offer.status'],
        }),
        { pattern: `^${EVENT_NAME}(?:,${EVENT_NAME})*$` },
      ),
    ),
    wait: Type.Integer({
      minimum: 0,
      maximum: MAX_FEED_WAIT_SECONDS,
      default: 0,
      description:
        'Seconds to hold the request open while no event is new (long-poll): it answers as soon as one is visible, or with an empty page when the time is up.',
    }),
  },
  { additionalProperties: false },
);

export const FeedItemSchema = Type.Object(
  {
    type: Type.String({
      description: 'As in the webhook body: what happened (created, updated, published, a status…)',
    }),
    resource: Type.String({ description: 'As in the webhook body: school, list, offer or subscription' }),
    identifier: Type.String({ description: 'As in the webhook body: what to fetch' }),
    id: Type.String({
      description:
        'The event id, also sent as the x-hook-event-id header of every webhook delivery of this event: de-duplicate push and pull on it',
      examples: ['evt_4fT9kQ2mXc8LrP0aZ1bNw7y'],
    }),
    event: Type.String({ enum: [...EVENT_NAMES], description: 'The canonical event name' }),
    occurredAt: Type.String({ format: 'date-time', description: 'When the event was recorded' }),
    cursor: Type.String({ description: 'Continue after this event with after=<cursor>' }),
  },
  { $id: 'FeedEvent', additionalProperties: false },
);

export const FeedPageSchema = Type.Object(
  {
    data: Type.Array(FeedItemSchema),
    has_more: Type.Boolean({ description: 'True when more events are visible now: ask again with after=next at once' }),
    next: Type.String({
      description:
        'The cursor to continue from, present on every page: after the last item, or (has_more false) after everything visible now, so an empty page still moves past events this token does not see',
    }),
  },
  { additionalProperties: false },
);
