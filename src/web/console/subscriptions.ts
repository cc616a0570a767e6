/** Every client's webhook subscriptions with their health; subscribe a client (new-subscription.ts); re-enable a disabled one. */

import type { SubscriptionHealth } from '../../overview/schemas.js';
import type { AdminSubscriptionView } from '../../subscriptions/schemas.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import { eventName } from '../common/deliveries.js';
import { h, notice } from '../common/dom.js';
import { healthBanner, healthState, recoveredText, recoverLabel } from '../common/health.js';
import { t } from '../common/i18n.js';
import { when } from '../common/time.js';
import { empty, table } from '../common/widgets.js';
import { act, api, go, link, state } from './app.js';
import { subscriptionPage } from './history-pages.js';
import { filterText, listChoices, newSubscription } from './new-subscription.js';
import { needs } from './roles.js';

export type AdminSubscription = AdminSubscriptionView;

export async function subscriptions(root: HTMLElement): Promise<void> {
  if (state.detail) {
    await subscriptionPage(root, state.detail);
    return;
  }
  root.append(h('h1', {}, t('subs.title')));
  const [result, health, lists] = await Promise.all([
    api<Page<AdminSubscription>>('GET', '/subscriptions?limit=100'),
    api<Page<SubscriptionHealth>>('GET', '/subscription-health'),
    listChoices(),
  ]);
  root.append(await newSubscription(lists));
  if (!result.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(result) })));
    return;
  }
  const byId = new Map(rowsOf(health).map((row) => [row.subscriptionId, row]));
  const deliveriesOf = (x: AdminSubscription) => () => go({ section: 'deliveries', query: { subscription: x.id } });
  const recoverFailed = async (x: AdminSubscription): Promise<void> => {
    const path = `/subscriptions/${encodeURIComponent(x.id)}/recover-failed`;
    await act<{ requeued: number }>(recoverLabel(x), 'POST', path, undefined, {
      done: (r) => `${recoverLabel(x)} (${x.client.name}): ${recoveredText(x, r.requeued)}`,
    });
  };
  // "Replay since…": the subscription's past events queued again from a time (the event feed's replay).
  const replayControl = (x: AdminSubscription) => {
    const since = h('input', { type: 'datetime-local', name: 'replay-since', 'aria-label': t('common.replaySince') });
    const replay = async () => {
      if (!since.value) {
        notice(t('common.chooseReplayTime'), true);
        return;
      }
      const path = `/subscriptions/${encodeURIComponent(x.id)}/replay`;
      const from = new Date(since.value).toISOString();
      await act<{ queued: number }>(
        t('common.replayEvents'),
        'POST',
        path,
        { from },
        { done: (r) => t('subs.replayed', { name: x.client.name, count: r.queued }) },
      );
    };
    const inactive = x.status !== 'active';
    return needs(
      'support',
      h('span', { className: 'row recover' }, [
        h('span', { className: 'muted' }, t('common.replaySince')),
        since,
        h(
          'button',
          {
            type: 'button',
            className: 'secondary',
            disabled: inactive,
            title: inactive ? t('subs.replayNeedsActive') : '',
            onclick: replay,
          },
          t('common.replay'),
        ),
      ]),
    );
  };
  // Failed attempts in a row, counted from the first one: the same count on the banner and in the table.
  const failedAttempts = (x: AdminSubscription): number => byId.get(x.id)?.consecutiveFailedAttempts ?? 0;
  const banners = rowsOf(result).map((x) => healthBanner(x, () => recoverFailed(x), failedAttempts(x)));
  root.append(
    ...banners.filter((banner) => banner !== null),
    table<AdminSubscription>(
      rowsOf(result),
      [
        [t('common.client'), (x) => h('strong', {}, link({ section: 'subscriptions', id: x.id }, x.client.name))],
        [t('common.receiver'), (x) => x.notificationUrl],
        [
          t('common.event'),
          (x) => {
            const only = filterText(x.filter, lists);
            return only === null
              ? eventName(x.canonicalEvent)
              : [eventName(x.canonicalEvent), h('br'), h('span', { className: 'muted' }, only)];
          },
        ],
        [t('subs.health'), healthState],
        [t('subs.lastSuccess'), (x) => when(byId.get(x.id)?.lastSuccessAt)],
        [t('subs.failedInARow'), (x) => String(failedAttempts(x))],
        [
          t('common.actions'),
          (x) => [
            h('button', { type: 'button', className: 'secondary', onclick: deliveriesOf(x) }, t('common.deliveries')),
            replayControl(x),
            x.status === 'disabled'
              ? h(
                  'button',
                  {
                    type: 'button',
                    onclick: () =>
                      void act(
                        t('common.reenableSubscription'),
                        'POST',
                        `/subscriptions/${encodeURIComponent(x.id)}/enable`,
                        undefined,
                        { done: () => t('subs.reenabled', { name: x.client.name }) },
                      ),
                  },
                  t('common.reenable'),
                )
              : null,
          ],
          'actions',
        ],
      ],
      t('subs.none'),
    ),
  );
}
