/** The client's webhook subscriptions: subscribe (with the offer filter), test ping, re-enable, recover, delete. */
import type { SubscriptionWithHealth } from '../../subscriptions/schemas.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import { eventName } from '../common/deliveries.js';
import { h, notice } from '../common/dom.js';
import { healthBanner, healthState, recoveredText, recoverLabel } from '../common/health.js';
import { parts, t } from '../common/i18n.js';
import { linkTo } from '../common/router.js';
import { type ListChoice, subscriptionForm } from '../common/subscription-form.js';
import { when } from '../common/time.js';
import { confirmThen, empty, field, table } from '../common/widgets.js';
import { act, api, router, show, state } from './app.js';
import { ping } from './ping.js';

type Subscription = SubscriptionWithHealth;

/** The event and, for a filtered offer event, which offers it is limited to. */
function eventOf(s: Subscription, lists: ReadonlyMap<string, ListChoice>) {
  const filter = s.filter;
  if (filter === undefined) return eventName(s.event);
  const only =
    'eans' in filter
      ? t('form.onlyEansText', {
          count: filter.eans.length,
          eans: filter.eans.slice(0, 3).join(', ') + (filter.eans.length > 3 ? ', …' : ''),
        })
      : t('form.onlyItemsOf', {
          list: lists.get(filter.list)?.name ?? t('form.listShort', { id: filter.list.slice(0, 8) }),
        });
  return [eventName(s.event), h('br'), h('span', { className: 'muted' }, only)];
}

/** The banner's click: (re-enable and) re-send what failed in the failing period, and show the result. */
async function recoverFailed(s: Subscription): Promise<void> {
  const path = `/subscriptions/${encodeURIComponent(s.id)}/recover-failed`;
  const result = await act<{ requeued: number }>(
    recoverLabel(s),
    'POST',
    path,
    undefined,
    (r) => `${recoverLabel(s)}: ${recoveredText(s, r.requeued)}`,
  );
  if (result.ok) await show('subscriptions', true);
}

function actions(s: Subscription, pingOut: HTMLElement) {
  const base = `/subscriptions/${encodeURIComponent(s.id)}`;
  const since = h('input', { type: 'datetime-local', name: 'recover-since' });
  const recover = async () => {
    if (!since.value) {
      notice(t('psubs.chooseRecoverTime'), true);
      return;
    }
    const body = { since: new Date(since.value).toISOString() };
    await act<{ requeued: number }>(t('psubs.recoverLabel'), 'POST', `${base}/recover`, body, (r) =>
      t('psubs.recovered', { count: r.requeued }),
    );
  };
  // Past events again, from a time: for a receiver that lost them or was added late (the event feed's replay).
  const replaySince = h('input', { type: 'datetime-local', name: 'replay-since' });
  const replay = async () => {
    if (!replaySince.value) {
      notice(t('common.chooseReplayTime'), true);
      return;
    }
    const body = { from: new Date(replaySince.value).toISOString() };
    await act<{ queued: number }>(t('common.replayEvents'), 'POST', `${base}/replay`, body, (r) =>
      t('psubs.replayed', { count: r.queued }),
    );
  };
  const reenable = async () => {
    const done = () => t('psubs.reenabled');
    if ((await act(t('common.reenableSubscription'), 'POST', `${base}/enable`, undefined, done)).ok)
      await show('subscriptions', true);
  };
  const remove = async () => {
    const done = () => t('psubs.deleted');
    if ((await act(t('psubs.deleteLabel'), 'DELETE', base, undefined, done)).ok) await show('subscriptions', true);
  };
  const deliveries = () => {
    state.deliveryFilter = { subscriptionId: s.id };
    void show('deliveries');
  };
  return [
    h(
      'button',
      { type: 'button', className: 'secondary', disabled: s.status !== 'active', onclick: () => ping(s, pingOut) },
      t('psubs.sendPing'),
    ),
    h('button', { type: 'button', className: 'secondary', onclick: deliveries }, t('common.deliveries')),
    s.status === 'disabled' ? h('button', { type: 'button', onclick: reenable }, t('common.reenable')) : null,
    h('span', { className: 'row recover' }, [
      field(t('psubs.recoverSince'), since),
      h('button', { type: 'button', className: 'secondary', onclick: recover }, t('psubs.recover')),
    ]),
    h('span', { className: 'row recover' }, [
      field(t('common.replaySince'), replaySince),
      h(
        'button',
        { type: 'button', className: 'secondary', disabled: s.status !== 'active', onclick: replay },
        t('common.replay'),
      ),
    ]),
    h(
      'button',
      {
        type: 'button',
        className: 'danger',
        onclick: confirmThen(t('psubs.deleteQuestion', { url: s.notificationUrl }), remove),
      },
      t('common.delete'),
    ),
  ];
}

export async function subscriptions(root: HTMLElement): Promise<void> {
  root.append(h('h1', {}, t('psubs.title')));
  // What a receiver needs besides its URL: the secret its webhooks are signed with, on Credentials.
  const credentials = linkTo(router, { section: 'credentials' }, () => show('credentials'), t('cred.title'));
  root.append(h('p', { className: 'muted', id: 'signed-with' }, parts('psubs.signedWith', { credentials })));
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
        notice(t('common.subscriptionNotCreated'), true);
        return created;
      }
      await show('subscriptions', true);
      notice(t('psubs.subscribed', { url: body.notificationUrl, event: eventName(body.event) }));
      return null;
    },
  });
  root.append(form);
  const pingOut = h('div', { id: 'ping-result' });
  if (!result.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(result) })));
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
        [t('common.receiver'), (s) => h('span', { className: 'url' }, s.notificationUrl)],
        [t('common.event'), (s) => eventOf(s, byList)],
        [t('common.status'), healthState],
        [t('common.created'), (s) => when(s.createdAt)],
        [t('common.actions'), (s) => actions(s, pingOut), 'actions'],
      ],
      t('psubs.none'),
    ),
  );
}
