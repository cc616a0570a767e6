/**
 * The delivery log across all clients: filter by status and subscription (both in the address), open a
 * delivery (its own address, /dashboard/deliveries/<id>), Retry or Retry now through the control the
 * portal uses too.
 */
import { type Page, problemText, rowsOf } from '../common/api.js';
import { type Delivery, eventName, outcomeWithNext, STATUS_FILTER } from '../common/deliveries.js';
import { h } from '../common/dom.js';
import { t } from '../common/i18n.js';
import { retryControl } from '../common/retry.js';
import { when } from '../common/time.js';
import { empty, field, inlineForm, select, table } from '../common/widgets.js';
import { api, go, link, state } from './app.js';
import { deliveryDetail, retryAndOpen, subscriptionsById } from './delivery-detail.js';
import { subjectLabels, subjectOf } from './subjects.js';
import type { AdminSubscription } from './subscriptions.js';

function filterForm(root: HTMLElement, subscriptions: ReadonlyMap<string, AdminSubscription>): void {
  const { status: wanted = '', subscription = '' } = state.query;
  const status = select(STATUS_FILTER, wanted, t('common.status'));
  root.append(
    inlineForm([field(t('common.status'), status)], t('common.filter'), () =>
      go({ section: 'deliveries', query: { status: status.value, subscription } }),
    ),
  );
  if (subscription) {
    const x = subscriptions.get(subscription);
    const which = x === undefined ? subscription : `${x.client.name} → ${x.notificationUrl}`;
    root.append(
      h('p', { className: 'muted' }, [
        t('log.oneSubscription', { which }),
        link({ section: 'deliveries', query: { status: wanted } }, t('common.showAll')),
      ]),
    );
  }
}

export async function deliveries(root: HTMLElement): Promise<void> {
  if (state.detail) {
    await deliveryDetail(root, state.detail);
    return;
  }
  root.append(h('h1', {}, t('log.title')));
  const { status = '', subscription = '' } = state.query;
  const query = new URLSearchParams({ limit: '50' });
  if (status) query.set('status', status);
  if (subscription) query.set('subscriptionId', subscription);
  const [result, subscriptions] = await Promise.all([
    api<Page<Delivery>>('GET', `/deliveries?${query.toString()}`),
    subscriptionsById(),
  ]);
  filterForm(root, subscriptions);
  if (!result.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(result) })));
    return;
  }
  const subjects = await subjectLabels(rowsOf(result));
  const disabled = (d: Delivery) => subscriptions.get(d.subscriptionId)?.status === 'disabled';
  root.append(
    table<Delivery>(
      rowsOf(result),
      [
        [t('common.created'), (d) => when(d.createdAt)],
        [
          t('common.client'),
          (d) => subscriptions.get(d.subscriptionId)?.client.name ?? t('common.deletedSubscription'),
        ],
        [
          t('common.receiver'),
          (d) => h('span', { className: 'url' }, subscriptions.get(d.subscriptionId)?.notificationUrl ?? '—'),
        ],
        [t('common.event'), (d) => eventName(d.event)],
        [t('common.about'), (d) => subjectOf(subjects, d)],
        [t('common.attempts'), (d) => String(d.attemptCount)],
        [t('common.outcome'), outcomeWithNext],
        [
          t('common.actions'),
          (d) => [
            link({ section: 'deliveries', id: d.id }, t('common.attempts'), 'button-link secondary'),
            retryControl(d, retryAndOpen(d), { subscriptionDisabled: disabled(d) }),
          ],
          'actions',
        ],
      ],
      status || subscription ? t('common.noDeliveryMatches') : t('log.none'),
    ),
  );
}
