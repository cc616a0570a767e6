/**
 * One delivery on a page of its own (/dashboard/deliveries/<id>): who it went to, what it was about,
 * its outcome with the next attempt, Retry (or Retry now), and every attempt with the body it sent.
 * While the delivery is due (just retried), the page looks again shortly, so the new attempt appears
 * without a reload.
 */
import { type Page, problemText, rowsOf } from '../common/api.js';
import { type Attempt, attemptsTable, type Delivery, eventName, outcomeWithNext } from '../common/deliveries.js';
import { h, notice } from '../common/dom.js';
import { t } from '../common/i18n.js';
import { type RetryAction, retryControl, retryReport } from '../common/retry.js';
import { isDue, when } from '../common/time.js';
import { empty } from '../common/widgets.js';
import { api, go, link, show, state } from './app.js';
import { subjectLabels, subjectOf } from './subjects.js';
import type { AdminSubscription } from './subscriptions.js';

interface DeliveryDetail extends Delivery {
  attempts: Attempt[];
}

/**
 * Retry or Retry now, then the delivery's own page, where its new attempt shows once the worker has
 * made it (that page follows a delivery that is due).
 */
export const retryAndOpen = (d: Delivery) => async (action: RetryAction) => {
  const result = await api<Delivery>('POST', `/deliveries/${encodeURIComponent(d.id)}/${action}`);
  if (!result.ok) {
    notice(t('common.retryFailed', { problem: problemText(result) }), true);
    return;
  }
  const here = state.current === 'deliveries' && state.detail === d.id;
  await go({ section: 'deliveries', id: d.id }, { keepNotice: true, replace: here });
  const report = retryReport(action, result.data);
  notice(report.text, report.kind);
};

/** The subscriptions by id: the log names each delivery's client and receiver, and knows a disabled one. */
export async function subscriptionsById(): Promise<Map<string, AdminSubscription>> {
  const subs = await api<Page<AdminSubscription>>('GET', '/subscriptions?limit=100');
  return new Map(rowsOf(subs).map((x) => [x.id, x]));
}

/** How often the page looks again while the delivery is due, and for how long at most. */
const FOLLOW_MS = 700;
const FOLLOW_TIMES = 20;
let followed = { id: '', times: 0 };

function follow(d: Delivery): void {
  const due = d.status === 'pending' && (d.nextAttemptAt === null || isDue(d.nextAttemptAt));
  if (followed.id !== d.id) followed = { id: d.id, times: 0 };
  if (!due || followed.times >= FOLLOW_TIMES) return;
  followed.times++;
  setTimeout(() => {
    if (state.current === 'deliveries' && state.detail === d.id) void show('deliveries', true);
  }, FOLLOW_MS);
}

export async function deliveryDetail(root: HTMLElement, id: string): Promise<void> {
  const back = h('p', {}, link({ section: 'deliveries' }, t('log.back')));
  const [result, subscriptions] = await Promise.all([
    api<DeliveryDetail>('GET', `/deliveries/${encodeURIComponent(id)}`),
    subscriptionsById(),
  ]);
  if (!result.ok) {
    root.append(
      back,
      h('h1', {}, t('log.delivery')),
      empty(t('log.couldNotLoad', { id, problem: problemText(result) })),
    );
    return;
  }
  const d = result.data;
  const subscription = subscriptions.get(d.subscriptionId);
  const about = subjectOf(await subjectLabels([d]), d);
  root.append(
    back,
    h('h1', {}, `${eventName(d.event)}: ${about}`),
    h('dl', { className: 'facts panel' }, [
      h('dt', {}, t('common.client')),
      h('dd', {}, subscription?.client.name ?? t('common.deletedSubscription')),
      h('dt', {}, t('common.receiver')),
      h('dd', {}, h('span', { className: 'url' }, subscription?.notificationUrl ?? '—')),
      h('dt', {}, t('common.outcome')),
      h('dd', { className: 'outcome' }, outcomeWithNext(d)),
      h('dt', {}, t('common.created')),
      h('dd', {}, when(d.createdAt)),
      h('dt', {}, t('log.deliveryId')),
      h('dd', {}, h('span', { className: 'id' }, d.id)),
      h('dt', {}, t('common.actions')),
      h('dd', {}, [
        retryControl(d, retryAndOpen(d), { subscriptionDisabled: subscription?.status === 'disabled' }),
        subscription === undefined
          ? null
          : [
              ' ',
              link({ section: 'deliveries', query: { subscription: subscription.id } }, t('log.allOfSubscription')),
            ],
      ]),
    ]),
    h('h2', {}, t('log.attempts', { count: d.attempts.length })),
    attemptsTable(d.attempts),
  );
  follow(d);
}
