/**
 * TypeBox shapes of the delivery log on the wire (validation, serialization and OpenAPI at once), and
 * the views' types derived from them for the service and the browser pages.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ACCEPTED_EVENT_SPELLINGS } from '../events/catalogue.js';
import { documentedAs } from '../http/documented.js';
import { DEFAULT_DELIVERY_PAGE, DELIVERY_STATUSES, ERROR_CLASSES, MAX_DELIVERY_PAGE } from './model.js';

const ErrorClassSchema = Type.Union(
  ERROR_CLASSES.map((name) => Type.Literal(name)),
  {
    description:
      'Why the last attempt failed: timeout, dns, connect, tls, http (a non-2xx answer, redirects included) or blocked (SSRF policy)',
  },
);

export const DeliverySchema = Type.Object(
  {
    id: Type.String({
      description: 'Also sent as the webhook-id header; stable across retries',
      examples: ['dlv_7Qm2kX9pLr4TzB0cW8nVa1y'],
    }),
    subscriptionId: Type.String(),
    event: Type.String({ description: 'Canonical event name (ping for test pings)', examples: ['list.published'] }),
    payload: Type.Object(
      { type: Type.String(), resource: Type.String(), identifier: Type.String() },
      { description: 'The exact body sent, parsed' },
    ),
    status: Type.Union(DELIVERY_STATUSES.map((status) => Type.Literal(status))),
    attemptCount: Type.Integer({
      description: 'Attempts made, scheduled and by hand ("Retry now" takes no step of the retry schedule)',
    }),
    nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Only while pending',
    }),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    lastErrorClass: Type.Union([ErrorClassSchema, Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'Delivery' },
);

export const AttemptSchema = Type.Object(
  {
    attemptNo: Type.Integer(),
    startedAt: Type.String({ format: 'date-time' }),
    durationMs: Type.Integer(),
    statusCode: Type.Union([Type.Integer(), Type.Null()]),
    errorClass: Type.Union([ErrorClassSchema, Type.Null()]),
    errorMessage: Type.Union([Type.String(), Type.Null()]),
    responseBody: Type.Union([Type.String(), Type.Null()], { description: 'The first 4 KB of the answer' }),
    requestHeaders: Type.Record(Type.String(), Type.String(), {
      description: 'Every header the request carried, its signatures masked',
    }),
    requestBody: Type.String({ description: 'The exact body the request carried' }),
  },
  { $id: 'DeliveryAttempt' },
);

export const DeliveryDetailSchema = Type.Composite(
  [DeliverySchema, Type.Object({ attempts: Type.Array(AttemptSchema) })],
  { $id: 'DeliveryDetail' },
);

export type DeliveryView = Static<typeof DeliverySchema>;
export type AttemptView = Static<typeof AttemptSchema>;
/** The body every webhook carries: what happened to which resource. */
export type WebhookPayload = DeliveryView['payload'];

export const DeliveryPageSchema = Type.Object({ has_more: Type.Boolean(), data: Type.Array(DeliverySchema) });

const pageFields = {
  limit: Type.Integer({ minimum: 1, maximum: MAX_DELIVERY_PAGE, default: DEFAULT_DELIVERY_PAGE }),
  starting_after: Type.Optional(
    Type.String({ maxLength: 64, description: 'The id of the last delivery of the previous page' }),
  ),
  status: Type.Optional(Type.Union(DELIVERY_STATUSES.map((status) => Type.Literal(status)))),
  // An unknown name is the service's 400; the document lists the names.
  event: Type.Optional(
    documentedAs(Type.String({ maxLength: 100, description: 'Event name, either spelling, or ping' }), {
      enum: [...ACCEPTED_EVENT_SPELLINGS, 'ping'],
    }),
  ),
};

export const DeliveryQuerySchema = Type.Object(pageFields);
export const AdminDeliveryQuerySchema = Type.Object({
  ...pageFields,
  subscriptionId: Type.Optional(Type.String({ maxLength: 64 })),
});
export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** The answer to a test ping: the outcome of its one attempt. */
export const PingOutcomeSchema = Type.Object(
  {
    deliveryId: Type.String({ description: "The ping's delivery (also its webhook-id)" }),
    ok: Type.Boolean({ description: 'True only when the receiver answered 2xx' }),
    statusCode: Type.Union([Type.Integer(), Type.Null()], {
      description: "The receiver's HTTP status; null when no answer came (see errorClass)",
    }),
    errorClass: Type.Union([ErrorClassSchema, Type.Null()], { description: 'Null when ok' }),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'Why it failed, in words (e.g. "HTTP 500"); null when ok',
    }),
    durationMs: Type.Integer(),
  },
  { $id: 'PingOutcome' },
);
