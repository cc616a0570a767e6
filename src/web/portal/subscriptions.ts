/** The client's webhook subscriptions: subscribe (with the offer filter), test ping, re-enable, recover, delete. */
import type { SubscriptionWithHealth } from '../../subscriptions/schemas.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import { eventName } from '../common/deliveries.js';
import { h, notice } from '../common/dom.js';
import { healthBanner, healthState, recoveredText, recoverLabel } from '../common/health.js';
import { type ListChoice, subscriptionForm } from '../common/subscription-form.js';
import { when } from '../common/time.js';
import { confirmThen, empty, field, plural, table } from '../common/widgets.js';
import { act, api, show, state } from './app.js';
import { ping } from './ping.js';

type Subscription = SubscriptionWithHealth;

/** The event and, for a filtered offer event, which offers it is limited to. */
function eventOf(s: Subscription, lists: ReadonlyMap<string, ListChoice>) {
  const filter = s.filter;
  if (filter === undefined) return eventName(s.event);
  const only =
    'eans' in filter
      ? `only ${plural(filter.eans.length, 'EAN', 'EANs')}: ${filter.eans.slice(0, 3).join(', ')}${filter.eans.length > 3 ? ', …' : ''}`
      : `only the items of ${lists.get(filter.list)?.name ?? `list ${filter.list.slice(0, 8)}…`}`;
  return [eventName(s.event), h('br'), h('span', { className: 'muted' }, only)];
}

/** The banner's click: (re-enable and) re-send what failed in the failing period, and show the result. */
async function recoverFailed(s: Subscription): Promise<void> {
  const path = `/subscriptions/${encodeURIComponent(s.id)}/recover-failed`;
  const result = await act<{ requeued: number }>(recoverLabel(s), 'POST', path);
  if (!result.ok) return;
  await show('subscriptions', true);
  notice(`${recoverLabel(s)}: ${recoveredText(s, result.data.requeued)}`);
}

function actions(s: Subscription, pingOut: HTMLElement) {
  const base = `/subscriptions/${encodeURIComponent(s.id)}`;
  const since = h('input', { type: 'datetime-local', name: 'recover-since' });
  const recover = async () => {
    if (!since.value) {
      notice('Choose the date and time to recover from.', true);
      return;
    }
    const body = { since: new Date(since.value).toISOString() };
    const r = await act<{ requeued: number }>('Recover failed deliveries', 'POST', `${base}/recover`, body);
    if (r.ok) notice(`Recover failed deliveries: ${plural(r.data.requeued, 'delivery', 'deliveries')} queued again.`);
  };
  // Past events again, from a time: for a receiver that lost them or was added late (the event feed's replay).
  const replaySince = h('input', { type: 'datetime-local', name: 'replay-since' });
  const replay = async () => {
    if (!replaySince.value) {
      notice('Choose the date and time to replay from.', true);
      return;
    }
    const body = { from: new Date(replaySince.value).toISOString() };
    const r = await act<{ queued: number }>('Replay events', 'POST', `${base}/replay`, body);
    if (r.ok) notice(`Replay events: ${plural(r.data.queued, 'event', 'events')} queued for delivery.`);
  };
  const reenable = async () => {
    if ((await act('Re-enable subscription', 'POST', `${base}/enable`)).ok) await show('subscriptions', true);
  };
  const remove = async () => {
    if ((await act('Delete subscription', 'DELETE', base)).ok) await show('subscriptions', true);
  };
  const deliveries = () => {
    state.deliveryFilter = { subscriptionId: s.id };
    void show('deliveries');
  };
  return [
    h(
      'button',
      { type: 'button', className: 'secondary', disabled: s.status !== 'active', onclick: () => ping(s, pingOut) },
      'Send test ping',
    ),
    h('button', { type: 'button', className: 'secondary', onclick: deliveries }, 'Deliveries'),
    s.status === 'disabled' ? h('button', { type: 'button', onclick: reenable }, 'Re-enable') : null,
    h('span', { className: 'row recover' }, [
      field('Recover failed deliveries since', since),
      h('button', { type: 'button', className: 'secondary', onclick: recover }, 'Recover'),
    ]),
    h('span', { className: 'row recover' }, [
      field('Replay since…', replaySince),
      h(
        'button',
        { type: 'button', className: 'secondary', disabled: s.status !== 'active', onclick: replay },
        'Replay',
      ),
    ]),
    h(
      'button',
      {
        type: 'button',
        className: 'danger',
        onclick: confirmThen(
          `Delete the subscription to ${s.notificationUrl}? Its pending deliveries are dropped.`,
          remove,
        ),
      },
      'Delete',
    ),
  ];
}

export async function subscriptions(root: HTMLElement): Promise<void> {
  root.append(h('h1', {}, 'Subscriptions'));
  const [result, listsResult] = await Promise.all([
    api<Page<Subscription>>('GET', '/subscriptions?limit=100'),
    api<Page<ListChoice>>('GET', '/lists'),
  ]);
  const lists = rowsOf(listsResult);
  const form = subscriptionForm({
    lists,
    submit: async (body) => {
      const created = await api('POST', '/subscriptions', body);
      if (!created.ok) {
        // The reason is shown under the field it is about; the notice only points there.
        notice('Subscription not created: see the form.', true);
        return created;
      }
      await show('subscriptions', true);
      notice(`Subscribed ${body.notificationUrl} to ${eventName(body.event)}.`);
      return null;
    },
  });
  root.append(form);
  const pingOut = h('div', { id: 'ping-result' });
  if (!result.ok) {
    root.append(empty(`Could not load: ${problemText(result)}`));
    return;
  }
  const byList = new Map(lists.map((l) => [l.identifier, l]));
  const banners = rowsOf(result).map((s) => healthBanner(s, () => recoverFailed(s), s.failedAttemptsInARow));
  root.append(
    ...banners.filter((banner) => banner !== null),
    pingOut,
    table<Subscription>(
      rowsOf(result),
      [
        ['Receiver', (s) => h('span', { className: 'url' }, s.notificationUrl)],
        ['Event', (s) => eventOf(s, byList)],
        ['Status', healthState],
        ['Created', (s) => when(s.createdAt)],
        ['Actions', (s) => actions(s, pingOut), 'actions'],
      ],
      'No subscriptions yet. Add a receiver URL above to be notified when lists change.',
    ),
  );
}
