/** The delivery log across all clients: filter, open the attempts, retry a finished delivery. */
import { type Page, problemText, rowsOf } from '../common/api.js';
import { type Attempt, attemptsTable, type Delivery, eventName, outcome, STATUS_FILTER } from '../common/deliveries.js';
import { h } from '../common/dom.js';
import { when } from '../common/time.js';
import { empty, field, inlineForm, select, table } from '../common/widgets.js';
import { act, api, show, state } from './app.js';
import { subjectLabels, subjectOf } from './subjects.js';
import type { AdminSubscription } from './subscriptions.js';

export async function deliveries(root: HTMLElement): Promise<void> {
  const filters = state.filters;
  root.append(h('h1', {}, 'Delivery log'));
  const status = select(STATUS_FILTER, filters.status, 'Status');
  root.append(
    inlineForm([field('Status', status)], 'Filter', () => {
      filters.status = status.value;
      return show('deliveries');
    }),
  );
  if (filters.subscriptionId) {
    const all = () => {
      filters.subscriptionId = '';
      void show('deliveries');
    };
    root.append(
      h('p', { className: 'muted' }, [
        'One subscription only. ',
        h('button', { type: 'button', className: 'secondary', onclick: all }, 'Show all'),
      ]),
    );
  }
  const query = new URLSearchParams({ limit: '50' });
  if (filters.status) query.set('status', filters.status);
  if (filters.subscriptionId) query.set('subscriptionId', filters.subscriptionId);
  const [result, subs] = await Promise.all([
    api<Page<Delivery>>('GET', `/deliveries?${query.toString()}`),
    api<Page<AdminSubscription>>('GET', '/subscriptions?limit=100'),
  ]);
  if (!result.ok) {
    root.append(empty(`Could not load: ${problemText(result)}`));
    return;
  }
  const subscriptions = new Map(rowsOf(subs).map((x) => [x.id, x]));
  const subjects = await subjectLabels(rowsOf(result));
  const detail = h('div');
  const openAttempts = (d: Delivery) => async () => {
    const r = await api<{ attempts: Attempt[] }>('GET', `/deliveries/${encodeURIComponent(d.id)}`);
    const to = subscriptions.get(d.subscriptionId)?.notificationUrl ?? d.subscriptionId;
    const heading = h('h2', {}, `Attempts of ${eventName(d.event)} to ${to}`);
    detail.replaceChildren(
      h('div', { className: 'panel' }, [heading, r.ok ? attemptsTable(r.data.attempts) : empty(problemText(r))]),
    );
  };
  const retry = (d: Delivery) => () => act('Retry delivery', 'POST', `/deliveries/${encodeURIComponent(d.id)}/retry`);
  root.append(
    table<Delivery>(
      rowsOf(result),
      [
        ['Created', (d) => when(d.createdAt)],
        ['Client', (d) => subscriptions.get(d.subscriptionId)?.client.name ?? 'deleted subscription'],
        ['Receiver', (d) => subscriptions.get(d.subscriptionId)?.notificationUrl ?? '—'],
        ['Event', (d) => eventName(d.event)],
        ['About', (d) => subjectOf(subjects, d)],
        ['Attempts', (d) => String(d.attemptCount)],
        ['Outcome', (d) => outcome(d)],
        [
          'Actions',
          (d) => [
            h('button', { type: 'button', className: 'secondary', onclick: openAttempts(d) }, 'Attempts'),
            h(
              'button',
              { type: 'button', className: 'secondary', disabled: d.status === 'pending', onclick: retry(d) },
              'Retry',
            ),
          ],
          'actions',
        ],
      ],
      'No deliveries match. Deliveries appear when an event happens for a subscription.',
    ),
    detail,
  );
}
