/**
 * The banner on a failing or disabled subscription (portal and console alike): why deliveries fail or
 * stopped, and the one click that recovers what failed in the current failing period — re-enabling
 * the subscription first when it is disabled. An active subscription is never offered "Re-enable".
 */
import type { SubscriptionView } from '../../subscriptions/schemas.js';
import { type Child, h } from './dom.js';
import { stateBadge } from './states.js';
import { when } from './time.js';
import { plural } from './widgets.js';

/** What the banner reads of a subscription, client's or operator's view alike. */
export type BannerSubject = Pick<
  SubscriptionView,
  'id' | 'notificationUrl' | 'status' | 'disabledReason' | 'failingSince'
>;

/** The click on a disabled subscription. */
export const RECOVER_LABEL = 'Re-enable and recover what failed';
/** The click on an active subscription whose attempts fail. */
export const RESEND_LABEL = 'Send again what failed';

export const recoverLabel = (s: BannerSubject): string => (s.status === 'disabled' ? RECOVER_LABEL : RESEND_LABEL);

/** The notice after the click: "Re-enabled; 1 failed delivery queued again." */
export function recoveredText(s: BannerSubject, requeued: number): string {
  const queued = `${plural(requeued, 'failed delivery', 'failed deliveries')} queued again.`;
  return s.status === 'disabled' ? `Re-enabled; ${queued}` : queued.charAt(0).toUpperCase() + queued.slice(1);
}

/**
 * A subscription's state in a table cell: "active · receiving", "active · receiving · failing since 2
 * minutes ago" (from the first failed attempt), "disabled · nothing is sent — the receiver answered 410".
 */
export function healthState(s: BannerSubject): Child {
  if (s.status === 'disabled')
    return [stateBadge('subscription', 'disabled'), s.disabledReason ? ` — ${s.disabledReason}` : ''];
  if (!s.failingSince) return stateBadge('subscription', 'active');
  return [
    stateBadge('subscription', 'active'),
    ' · ',
    h('span', { className: 'failing-since' }, ['failing since ', when(s.failingSince)]),
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
  if (!disabled && !s.failingSince) return null;
  const inARow =
    failedAttempts === undefined ? '' : ` (${plural(failedAttempts, 'failed attempt', 'failed attempts')} in a row)`;
  const reason = disabled
    ? [h('strong', {}, 'Disabled: '), `${s.disabledReason ?? 'disabled'}. Nothing is sent to it any more.`]
    : [
        h('strong', {}, 'Failing: '),
        'every attempt has failed since ',
        when(s.failingSince),
        `${inARow}. After 5 days of failures the subscription is disabled.`,
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
