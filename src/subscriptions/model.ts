/**
 * Subscriptions as the API sends them, derived from the TypeBox schemas (the wire shape is written
 * once, for validation, serialization, OpenAPI, the services and the browser pages), and the page sizes.
 */
import type { Static } from '@sinclair/typebox';
import type { AdminSubscriptionSchema, SubscriptionSchema } from './schemas.js';

/**
 * A client's view of its subscription. `event` is the spelling it registered (dotted or hyphenated);
 * `disabledReason` is present only while disabled, `failingSince` only while deliveries fail, and
 * `filter` (offer events) as given, normalised.
 */
export type SubscriptionView = Static<typeof SubscriptionSchema>;
/** The operator's view: the canonical event, the owning client and the last change as well. */
export type AdminSubscriptionView = Static<typeof AdminSubscriptionSchema>;

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
