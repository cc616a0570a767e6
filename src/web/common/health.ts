/**
 * The banner on a failing or disabled subscription (portal and console alike): why deliveries fail or
 * stopped, and the one click that re-enables it and re-sends what failed in the current failing period.
 */
import type { SubscriptionView } from '../../subscriptions/schemas.js';
import { h } from './dom.js';
import { when } from './time.js';

/** What the banner reads of a subscription, client's or operator's view alike. */
export type BannerSubject = Pick<
  SubscriptionView,
  'id' | 'notificationUrl' | 'status' | 'disabledReason' | 'failingSince'
>;

export const RECOVER_LABEL = 'Re-enable and recover what failed';

/** Null for a healthy subscription. `recover` performs the click (the caller's API and refresh). */
export function healthBanner(s: BannerSubject, recover: () => Promise<unknown>): HTMLElement | null {
  const disabled = s.status === 'disabled';
  if (!disabled && !s.failingSince) return null;
  const reason = disabled
    ? [h('strong', {}, 'Disabled: '), `${s.disabledReason ?? 'disabled'}. Nothing is sent to it any more.`]
    : [
        h('strong', {}, 'Failing: '),
        'every delivery has failed since ',
        when(s.failingSince),
        '. After 5 days of failures the subscription is disabled.',
      ];
  const button = h('button', { type: 'button' }, RECOVER_LABEL);
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
