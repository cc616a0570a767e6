/** A subscription's row as its owner, the partner portal and the operator see it. */
import { isoTime } from '../clock.js';
import type { SubscriptionRow } from '../db/schema.js';
import { filterView } from './filter.js';
import { REVOKED_REASONS, type RevokedReason, SUBSCRIPTION_STATUSES, type SubscriptionStatus } from './model.js';
import type { AdminSubscriptionView, SubscriptionView, SubscriptionWithHealth } from './schemas.js';
import type { SubscriptionWithClient } from './store.js';

const statusOf = (status: string): SubscriptionStatus =>
  SUBSCRIPTION_STATUSES.find((known) => known === status) ?? 'active';
const revokedReasonOf = (reason: string | null): RevokedReason =>
  REVOKED_REASONS.find((known) => known === reason) ?? 'client-revoked';

export function toView(row: SubscriptionRow): SubscriptionView {
  return {
    id: row.id,
    notificationUrl: row.notification_url,
    event: row.event_as_given,
    status: statusOf(row.status),
    ...(row.status === 'disabled' ? { disabledReason: row.disabled_reason ?? 'disabled' } : {}),
    ...(row.status === 'revoked' ? { revokedReason: revokedReasonOf(row.disabled_reason) } : {}),
    ...(row.failing_since === null ? {} : { failingSince: isoTime(row.failing_since) }),
    ...filterView(row),
    createdAt: isoTime(row.created_at),
  };
}

/** The partner portal's view: the client's own, and the failed attempts in a row its banner counts. */
export function toViewWithHealth(row: SubscriptionRow): SubscriptionWithHealth {
  return { ...toView(row), failedAttemptsInARow: Number(row.consecutive_failures) };
}

export function toAdminView(row: SubscriptionWithClient): AdminSubscriptionView {
  return {
    ...toView(row),
    canonicalEvent: row.event,
    client: { id: row.client_ref, clientId: row.client_public_id, name: row.client_name },
    updatedAt: isoTime(row.updated_at),
  };
}
