/** The client's webhook subscriptions: subscribe, test ping, re-enable, recover, delete. */
import { EVENT_NAMES } from '../../events/catalogue.js';
import type { SubscriptionView } from '../../subscriptions/schemas.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import { type Attempt, attemptResult, eventName } from '../common/deliveries.js';
import { h, notice, sleep } from '../common/dom.js';
import { healthBanner, RECOVER_LABEL } from '../common/health.js';
import { ms, when } from '../common/time.js';
import { badge, confirmThen, empty, field, inlineForm, select, table } from '../common/widgets.js';
import { act, api, show, state } from './app.js';

type Subscription = SubscriptionView;

async function ping(subscription: Subscription, out: HTMLElement): Promise<void> {
  const result = await act<{ deliveryId: string }>(
    'Send test ping',
    'POST',
    `/subscriptions/${encodeURIComponent(subscription.id)}/ping`,
  );
  if (!result.ok) return;
  const id = result.data.deliveryId;
  out.replaceChildren(
    h('div', { className: 'panel' }, `Test ping sent to ${subscription.notificationUrl}; waiting for the result…`),
  );
  for (let i = 0; i < 20; i++) {
    await sleep(500);
    const detail = await api<{ attempts: Attempt[] }>('GET', `/deliveries/${encodeURIComponent(id)}`);
    const a = detail.ok ? detail.data.attempts.at(-1) : undefined;
    if (a !== undefined) {
      const line = [
        h('strong', {}, 'Test ping result: '),
        attemptResult(a),
        ' in ',
        ms(a.durationMs),
        ' ',
        when(a.startedAt),
      ];
      out.replaceChildren(h('div', { className: 'panel' }, line));
      return;
    }
  }
  out.replaceChildren(
    h('div', { className: 'panel' }, 'The test ping has not been attempted yet; see Deliveries for its result.'),
  );
}

function statusOf(s: Subscription) {
  if (s.status !== 'active') return [badge('disabled'), ' ', s.disabledReason ?? ''];
  return s.failingSince ? [badge('failing', 'failed'), ' since ', when(s.failingSince)] : badge('active');
}

/** The banner's click: re-enable, re-send what failed in the failing period, and show the result. */
async function recoverFailed(s: Subscription): Promise<void> {
  const path = `/subscriptions/${encodeURIComponent(s.id)}/recover-failed`;
  const result = await act<{ requeued: number }>(RECOVER_LABEL, 'POST', path);
  if (!result.ok) return;
  await show('subscriptions', true);
  notice(`${RECOVER_LABEL}: re-enabled; ${result.data.requeued} failed delivery(ies) queued again.`);
}

function actions(s: Subscription, pingOut: HTMLElement) {
  const base = `/subscriptions/${encodeURIComponent(s.id)}`;
  const since = h('input', { type: 'datetime-local', 'aria-label': 'Recover failed since' });
  const recover = async () => {
    if (!since.value) {
      notice('Choose the date and time to recover from.', true);
      return;
    }
    const body = { since: new Date(since.value).toISOString() };
    const r = await act<{ requeued: number }>('Recover failed deliveries', 'POST', `${base}/recover`, body);
    if (r.ok) notice(`Recover failed deliveries: ${r.data.requeued} delivery(ies) queued again.`);
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
    h('span', { className: 'row' }, [
      since,
      h('button', { type: 'button', className: 'secondary', onclick: recover }, 'Recover failed since…'),
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
  const url = h('input', {
    type: 'url',
    name: 'notificationUrl',
    placeholder: 'your receiver URL (https)',
    required: true,
    size: 40,
    maxlength: 2048,
  });
  const event = select(
    EVENT_NAMES.map((e) => [e, `${eventName(e)} (${e})`] as const),
    'list.published',
    'Event',
  );
  const formError = h('p', { className: 'error-text', role: 'alert' });
  const subscribe = async () => {
    formError.textContent = '';
    const body = { notificationUrl: url.value.trim(), event: event.value };
    const result = await act('Create subscription', 'POST', '/subscriptions', body);
    if (!result.ok) formError.textContent = problemText(result);
    else await show('subscriptions', true);
  };
  root.append(inlineForm([field('Receiver URL', url), field('Event', event)], 'Subscribe', subscribe), formError);
  const pingOut = h('div', { id: 'ping-result' });
  const result = await api<Page<Subscription>>('GET', '/subscriptions?limit=100');
  if (!result.ok) {
    root.append(empty(`Could not load: ${problemText(result)}`));
    return;
  }
  const banners = rowsOf(result).map((s) => healthBanner(s, () => recoverFailed(s)));
  root.append(
    ...banners.filter((banner) => banner !== null),
    pingOut,
    table<Subscription>(
      rowsOf(result),
      [
        ['Receiver', (s) => h('span', { className: 'url' }, s.notificationUrl)],
        ['Event', (s) => eventName(s.event)],
        ['Status', statusOf],
        ['Created', (s) => when(s.createdAt)],
        ['Actions', (s) => actions(s, pingOut), 'actions'],
      ],
      'No subscriptions yet. Add a receiver URL above to be notified when lists change.',
    ),
  );
}
