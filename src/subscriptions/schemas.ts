/** TypeBox shapes of subscriptions on the wire; they validate, serialize and document (OpenAPI) at once. */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ACCEPTED_EVENT_SPELLINGS } from '../events/catalogue.js';
import { documentedAs } from '../http/documented.js';
import { FilterSchema } from './filter-schema.js';
import { DEFAULT_SUBSCRIPTION_PAGE, MAX_SUBSCRIPTION_PAGE, REVOKED_REASONS, SUBSCRIPTION_STATUSES } from './model.js';
import { MAX_NOTIFICATION_URL_LENGTH, NOTIFICATION_URL_RULE } from './notification-url.js';

const fields = {
  id: Type.String({ examples: ['sub_4fT9kQ2mXc8LrP0aZ1bNw7y'] }),
  notificationUrl: Type.String({ format: 'uri', description: 'The URL as stored (WHATWG-normalised) and called' }),
  event: Type.String({
    description: 'The event name exactly as it was given at registration',
    examples: ['list-published'],
  }),
  status: Type.Union(
    SUBSCRIPTION_STATUSES.map((status) => Type.Literal(status)),
    {
      description:
        '`disabled`: delivery stopped it (410 Gone, failing too long) and it can be re-enabled; `revoked`: its client was revoked, for good',
    },
  ),
  disabledReason: Type.Optional(
    Type.String({ description: 'Present only while disabled', examples: ['receiver answered 410 Gone'] }),
  ),
  revokedReason: Type.Optional(
    Type.Union(
      REVOKED_REASONS.map((reason) => Type.Literal(reason)),
      { description: 'Present only when revoked: why it ended' },
    ),
  ),
  failingSince: Type.Optional(
    Type.String({ format: 'date-time', description: 'Present only while deliveries are failing' }),
  ),
  filter: Type.Optional(FilterSchema),
  createdAt: Type.String({ format: 'date-time' }),
};

export const SubscriptionSchema = Type.Object(fields, { $id: 'Subscription', additionalProperties: false });

export const AdminSubscriptionSchema = Type.Object(
  {
    ...fields,
    canonicalEvent: Type.String({ examples: ['list.published'] }),
    client: Type.Object({ id: Type.String(), clientId: Type.String(), name: Type.String() }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'AdminSubscription', additionalProperties: false },
);

/**
 * A client's view of its subscription, as the API sends it. `event` is the spelling it registered
 * (dotted or hyphenated); `disabledReason` is present only while disabled, `revokedReason` only when revoked, `failingSince` only while
 * deliveries fail, and `filter` (offer events) as given, normalised.
 */
export type SubscriptionView = Static<typeof SubscriptionSchema>;
/** The operator's view: the canonical event, the owning client and the last change as well. */
export type AdminSubscriptionView = Static<typeof AdminSubscriptionSchema>;
/** The partner portal's view of a subscription: the client's own, and the failed attempts in a row since its last success. */
export type SubscriptionWithHealth = SubscriptionView & { failedAttemptsInARow: number };

export const CreateSubscriptionBody = Type.Object(
  {
    notificationUrl: documentedAs(
      Type.String({
        maxLength: MAX_NOTIFICATION_URL_LENGTH,
        description: 'Absolute http:// or https:// URL without credentials or fragment; it must reach a public address',
        examples: ['https://shop.example/webhooks/shelfmark'],
      }),
      NOTIFICATION_URL_RULE,
    ),
    // The service answers an unknown event itself (400 with acceptedEvents); the document lists the names.
    event: documentedAs(
      Type.String({
        maxLength: 100,
        description: 'The event name, dotted or hyphenated',
        examples: ['list-published'],
      }),
      { enum: [...ACCEPTED_EVENT_SPELLINGS] },
    ),
    filter: Type.Optional(FilterSchema),
  },
  { additionalProperties: false },
);

/** The operator's registration: the same fields, for the client it names. */
export const AdminCreateSubscriptionBody = Type.Object(
  {
    clientId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The client it is for: its id (cli_...) or its public clientId (smc_...)',
      examples: ['smc_7bq2mXc8LrP0aZ1b'],
    }),
    ...CreateSubscriptionBody.properties,
  },
  { additionalProperties: false },
);

export const SubscriptionPageQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: MAX_SUBSCRIPTION_PAGE, default: DEFAULT_SUBSCRIPTION_PAGE }),
  starting_after: Type.Optional(
    Type.String({ maxLength: 64, description: 'The id of the last subscription of the previous page' }),
  ),
});

export const SubscriptionIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({ has_more: Type.Boolean(), data: Type.Array(item) }, { additionalProperties: false });
