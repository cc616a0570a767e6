/**
 * The SDK's public types, all derived from the service's OpenAPI document (src/generated/openapi.ts)
 * by path and method, so they follow the service whenever `npm run sdk:generate` is rerun.
 */
import type { paths, webhooks } from './generated/openapi.js';

type Method = 'get' | 'post' | 'delete';
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Operation<P extends keyof paths, M extends Method> = paths[P][M];

/** The JSON body of a successful answer of `M P` (any of the given statuses). */
export type ResponseBody<P extends keyof paths, M extends Method, S extends number = 200> =
  Operation<P, M> extends { responses: infer R }
    ? { [K in keyof R]: K extends S ? JsonOf<R[K]> : never }[keyof R]
    : never;

/** The JSON request body of `M P`. */
export type RequestBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody: { content: { 'application/json': infer B } } }
    ? B
    : Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } }
      ? B
      : never;

/** The query parameters of `M P`, all optional: the service fills in its defaults. */
export type QueryOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? Partial<NonNullable<Q>> : never;

export type TokenResponse = ResponseBody<'/api/auth/token', 'get'>;
export type Offer = ResponseBody<'/api/v1/offers/{id}', 'get'>;
export type School = ResponseBody<'/api/lml/v1/schools/{identifier}', 'get'>;
export type LearningMaterialList = ResponseBody<'/api/lml/v1/lists/{identifier}', 'get'>;
export type StructureNode = ResponseBody<'/api/lml/v1/structure', 'get'>[number];
export type Subscription = ResponseBody<'/api/lml/v1/subscriptions/{id}', 'get'>;
export type CreateSubscription = RequestBody<'/api/lml/v1/subscriptions', 'post'>;
export type Delivery = ResponseBody<'/api/lml/v1/subscriptions/{id}/deliveries', 'get'>['data'][number];
export type PingResult = ResponseBody<'/api/lml/v1/subscriptions/{id}/ping', 'post', 200>;
/** What a replay queued, and the feed cursor it covers events up to. */
export type ReplayResult = ResponseBody<'/api/lml/v1/subscriptions/{id}/replay', 'post', 202>;
export type RotatedWebhookSecret = ResponseBody<'/api/lml/v1/webhook-secret', 'post'>;
/** A whole book list priced in one call: the list, its items with their cheapest offers, the totals. */
export type PricedList = ResponseBody<'/api/v1/lists/{identifier}/offers', 'get'>;
export type PricedListQuery = QueryOf<'/api/v1/lists/{identifier}/offers', 'get'>;
/** An offer-event filter of a subscription: `{eans: [...]}` or `{list: "<list identifier>"}`. */
export type SubscriptionFilter = NonNullable<CreateSubscription['filter']>;
/**
 * Every event a subscription can ask for, canonical (dotted) spelling, e.g. `offer.published` or
 * `subscription.failing`: the OpenAPI `webhooks`, which the server makes from its event catalogue.
 */
export type EventName = keyof webhooks;

/** One page of a collection: `{has_more, data}`. */
export interface Page<T> {
  has_more: boolean;
  data: T[];
}

export type PageQuery = { limit?: number; starting_after?: string };
export type SchoolQuery = QueryOf<'/api/lml/v1/schools', 'get'>;
export type ListQuery = QueryOf<'/api/lml/v1/lists', 'get'>;
export type SubscriptionQuery = QueryOf<'/api/lml/v1/subscriptions', 'get'>;
export type DeliveryQuery = QueryOf<'/api/lml/v1/subscriptions/{id}/deliveries', 'get'>;

/** A problem document (RFC 9457) as the service renders every error. */
export interface ProblemDocument {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  code?: string;
  [extension: string]: unknown;
}

/** The same names, under the receiver kit's name for them. */
export type WebhookEventName = EventName;

/** The payload of a webhook of event `E`, exactly as sent. */
export type WebhookPayload<E extends WebhookEventName> = NonNullable<webhooks[E]['post']>['requestBody'] extends {
  content: { 'application/json': infer B };
}
  ? B
  : never;
