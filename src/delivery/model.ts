/**
 * The delivery log's vocabulary, one source for the store, the API schemas, the metrics and the
 * browser pages: the statuses, why an attempt failed, the page sizes, and the views as the API
 * sends them (derived from the TypeBox schemas, so the wire shape is written once).
 */
import type { Static } from '@sinclair/typebox';
import type { AttemptSchema, DeliverySchema } from './schemas.js';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Why an attempt failed; `http` is a non-2xx answer, `blocked` the SSRF policy refusing the address. */
export const ERROR_CLASSES = ['timeout', 'dns', 'connect', 'tls', 'http', 'blocked'] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

export const DEFAULT_DELIVERY_PAGE = 20;
export const MAX_DELIVERY_PAGE = 100;

export type DeliveryView = Static<typeof DeliverySchema>;
export type AttemptView = Static<typeof AttemptSchema>;
/** The body every webhook carries: what happened to which resource. */
export type WebhookPayload = DeliveryView['payload'];
