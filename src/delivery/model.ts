/**
 * The delivery log's vocabulary, one source for the store, the API schemas (schemas.ts, which also
 * derives the views' types), the metrics and the browser pages: the statuses, why an attempt failed,
 * and the page sizes.
 */

/** `cancelled`: never sent again because its client was revoked (kept in the log, as failed ones are). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Why an attempt failed; `http` is a non-2xx answer, `blocked` the SSRF policy refusing the address. */
export const ERROR_CLASSES = ['timeout', 'dns', 'connect', 'tls', 'http', 'blocked'] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

export const DEFAULT_DELIVERY_PAGE = 20;
export const MAX_DELIVERY_PAGE = 100;
