/**
 * The banner on a failing or disabled subscription (portal and console alike): why deliveries fail or
 * stopped, and the one click that recovers what failed in the current failing period — re-enabling
 * the subscription first when it is disabled. An active subscription is never offered "Re-enable".
 */
import type { SubscriptionView } from '../../subscriptions/schemas.js';
import { type Child, h } from './dom.js';
import { type MessageKey, parts, t } from './i18n.js';
import { stateBadge } from './states.js';
import { when } from './time.js';

/** What the banner reads of a subscription, client's or operator's view alike. */
export type BannerSubject = Pick<
  SubscriptionView,
  'id' | 'notificationUrl' | 'status' | 'disabledReason' | 'failingSince'
>;

/** The click on a disabled subscription ("Re-enable and recover what failed"), or on an active one whose attempts fail. */
export const recoverLabel = (s: BannerSubject): string =>
  s.status === 'disabled' ? t('health.recover') : t('health.resend');

/** The notice after the click: "Re-enabled; 1 failed delivery queued again." */
export function recoveredText(s: BannerSubject, requeued: number): string {
  return t(s.status === 'disabled' ? 'health.reenabledRequeued' : 'health.requeued', { count: requeued });
}

/** The reasons the server gives for disabling, in the page's language (any other as the server wrote it). */
const REASONS: Readonly<Record<string, MessageKey>> = {
  disabled: 'health.reason.disabled',
  'every delivery attempt failed for 5 days': 'health.reason.fiveDays',
  'the receiver answered 410 Gone': 'health.reason.gone',
};

const reasonText = (reason: string | undefined): string => {
  const key = REASONS[reason ?? 'disabled'];
  return key === undefined ? (reason ?? '') : t(key);
};

/**
 * A subscription's state in a table cell: "active · receiving", "active · receiving · failing since 2
 * minutes ago" (from the first failed attempt), "disabled · nothing is sent — the receiver answered 410".
 */
export function healthState(s: BannerSubject): Child {
  // Ended for good with its client: nothing to recover, so no failing period either.
  if (s.status === 'revoked') return stateBadge('subscription', 'revoked');
  if (s.status === 'disabled')
    return [stateBadge('subscription', 'disabled'), s.disabledReason ? ` — ${reasonText(s.disabledReason)}` : ''];
  if (!s.failingSince) return stateBadge('subscription', 'active');
  // Still active, but not "receiving": its attempts fail.
  return [
    stateBadge('failing', 'active', 'pending'),
    ' · ',
    h('span', { className: 'failing-since' }, parts('health.failingSince', { when: when(s.failingSince) })),
  ];
}

/**
 * Null for a healthy subscription. `failedAttempts` is the count of attempts failed in a row, where the
 * page knows it; `recover` performs the click (the caller's API and refresh).
 */
export function healthBanner(
  s: BannerSubject,
  recover: () => Promise<unknown>,
  failedAttempts?: number,
): HTMLElement | null {
  const disabled = s.status === 'disabled';
  if (s.status === 'revoked' || (!disabled && !s.failingSince)) return null;
  const inARow = failedAttempts === undefined ? '' : t('health.inARow', { count: failedAttempts });
  const reason = disabled
    ? [h('strong', {}, t('health.disabledLead')), t('health.disabledText', { reason: reasonText(s.disabledReason) })]
    : [
        h('strong', {}, t('health.failingLead')),
        ...parts('health.failingText', { when: when(s.failingSince), inARow }),
      ];
  const button = h('button', { type: 'button' }, recoverLabel(s));
  button.onclick = async () => {
    button.disabled = true;
    try {
      await recover();
    } finally {
      button.disabled = false;
    }
  };
  return h(
    'div',
    { className: `banner ${disabled ? 'disabled' : 'failing'}`, role: 'alert', 'data-subscription': s.id },
    [h('p', {}, [h('span', { className: 'url' }, s.notificationUrl), ' — ', ...reason]), button],
  );
}
