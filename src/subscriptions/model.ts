/** A subscription's vocabulary (statuses, why one ended) and page sizes, for the service, the stores and the API schemas. */

export const DEFAULT_SUBSCRIPTION_PAGE = 20;
export const MAX_SUBSCRIPTION_PAGE = 100;

/**
 * `disabled`: delivery stopped it (410 Gone, failing too long); the operator or the partner can turn it
 * back on. `revoked`: its client was revoked; it is over for good and nothing brings it back.
 */
export const SUBSCRIPTION_STATUSES = ['active', 'disabled', 'revoked'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Why a subscription was revoked (the only cause today: its client was). */
export const REVOKED_REASONS = ['client-revoked'] as const;
export type RevokedReason = (typeof REVOKED_REASONS)[number];
