/**
 * The delivery log across all clients: filter by status and subscription (both in the address), open a
 * delivery (its own address, /dashboard/deliveries/<id>), Retry or Retry now through the control the
 * portal uses too.
 */
import { type Page, problemText, rowsOf } from '../common/api.js';
import { type Delivery, eventName, outcomeWithNext, STATUS_FILTER } from '../common/deliveries.js';
import { h } from '../common/dom.js';
import { retryControl } from '../common/retry.js';
import { when } from '../common/time.js';
import { empty, field, inlineForm, select, table } from '../common/widgets.js';
import { api, go, link, state } from './app.js';
import { deliveryDetail, retryAndOpen, subscriptionsById } from './delivery-detail.js';
import { subjectLabels, subjectOf } from './subjects.js';
import type { AdminSubscription } from './subscriptions.js';

function filterForm(root: HTMLElement, subscriptions: ReadonlyMap<string, AdminSubscription>): void {
  const { status: wanted = '', subscription = '' } = state.query;
  const status = select(STATUS_FILTER, wanted, 'Status');
  root.append(
    inlineForm([field('Status', status)], 'Filter', () =>
      go({ section: 'deliveries', query: { status: status.value, subscription } }),
    ),
  );
  if (subscription) {
    const x = subscriptions.get(subscription);
    const which = x === undefined ? subscription : `${x.client.name} → ${x.notificationUrl}`;
    root.append(
      h('p', { className: 'muted' }, [
        `One subscription only: ${which}. `,
        link({ section: 'deliveries', query: { status: wanted } }, 'Show all'),
      ]),
    );
  }
}

export async function deliveries(root: HTMLElement): Promise<void> {
  if (state.detail) {
    await deliveryDetail(root, state.detail);
    return;
  }
  root.append(h('h1', {}, 'Delivery log'));
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
    root.append(empty(`Could not load: ${problemText(result)}`));
    return;
  }
  const subjects = await subjectLabels(rowsOf(result));
  const disabled = (d: Delivery) => subscriptions.get(d.subscriptionId)?.status === 'disabled';
  root.append(
    table<Delivery>(
      rowsOf(result),
      [
        ['Created', (d) => when(d.createdAt)],
        ['Client', (d) => subscriptions.get(d.subscriptionId)?.client.name ?? 'deleted subscription'],
        [
          'Receiver',
          (d) => h('span', { className: 'url' }, subscriptions.get(d.subscriptionId)?.notificationUrl ?? '—'),
        ],
        ['Event', (d) => eventName(d.event)],
        ['About', (d) => subjectOf(subjects, d)],
        ['Attempts', (d) => String(d.attemptCount)],
        ['Outcome', outcomeWithNext],
        [
          'Actions',
          (d) => [
            link({ section: 'deliveries', id: d.id }, 'Attempts', 'button-link secondary'),
            retryControl(d, retryAndOpen(d), { subscriptionDisabled: disabled(d) }),
          ],
          'actions',
        ],
      ],
      status || subscription
        ? 'No delivery matches these filters.'
        : 'No deliveries match. Deliveries appear when an event happens for a subscription.',
    ),
  );
}
