/** Every client's webhook subscriptions with their health; re-enable a disabled one. */
import type { SubscriptionHealth } from '../../ops/overview-schemas.js';
import type { AdminSubscriptionView } from '../../subscriptions/schemas.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import { eventName } from '../common/deliveries.js';
import { h, notice } from '../common/dom.js';
import { healthBanner, RECOVER_LABEL } from '../common/health.js';
import { when } from '../common/time.js';
import { badge, empty, table } from '../common/widgets.js';
import { act, api, show, state } from './app.js';

export type AdminSubscription = AdminSubscriptionView;

function healthOf(x: AdminSubscription) {
  if (x.status === 'disabled') return [badge('disabled'), ' ', x.disabledReason ?? ''];
  if (x.failingSince) return [badge('failing', 'failed'), ' since ', when(x.failingSince)];
  return badge('active');
}

export async function subscriptions(root: HTMLElement): Promise<void> {
  root.append(h('h1', {}, 'Webhook subscriptions'));
  const [result, health] = await Promise.all([
    api<Page<AdminSubscription>>('GET', '/subscriptions?limit=100'),
    api<Page<SubscriptionHealth>>('GET', '/subscription-health'),
  ]);
  if (!result.ok) {
    root.append(empty(`Could not load: ${problemText(result)}`));
    return;
  }
  const byId = new Map(rowsOf(health).map((row) => [row.subscriptionId, row]));
  const deliveriesOf = (x: AdminSubscription) => () => {
    state.filters.subscriptionId = x.id;
    void show('deliveries');
  };
  const recoverFailed = async (x: AdminSubscription): Promise<void> => {
    const path = `/subscriptions/${encodeURIComponent(x.id)}/recover-failed`;
    const r = await act<{ requeued: number }>(RECOVER_LABEL, 'POST', path);
    if (!r.ok) return;
    await show('subscriptions', true);
    notice(`${RECOVER_LABEL} (${x.client.name}): re-enabled; ${r.data.requeued} failed delivery(ies) queued again.`);
  };
  const banners = rowsOf(result).map((x) => healthBanner(x, () => recoverFailed(x)));
  root.append(
    ...banners.filter((banner) => banner !== null),
    table<AdminSubscription>(
      rowsOf(result),
      [
        ['Client', (x) => h('strong', {}, x.client.name)],
        ['Receiver', (x) => x.notificationUrl],
        ['Event', (x) => eventName(x.canonicalEvent)],
        ['Health', healthOf],
        ['Last success', (x) => when(byId.get(x.id)?.lastSuccessAt)],
        ['Failures in a row', (x) => String(byId.get(x.id)?.consecutiveFailures ?? 0)],
        [
          'Actions',
          (x) => [
            h('button', { type: 'button', className: 'secondary', onclick: deliveriesOf(x) }, 'Deliveries'),
            x.status === 'disabled'
              ? h(
                  'button',
                  {
                    type: 'button',
                    onclick: () =>
                      void act('Re-enable subscription', 'POST', `/subscriptions/${encodeURIComponent(x.id)}/enable`),
                  },
                  'Re-enable',
                )
              : null,
          ],
          'actions',
        ],
      ],
      'No subscriptions yet. Partners add them in their portal (send them a portal link from Clients).',
    ),
  );
}
