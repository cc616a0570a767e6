/**
 * The client's delivery log: filters, paging, each delivery's attempts, and Retry. A finished delivery
 * is sent once more (…/retry); one waiting for its next scheduled attempt is sent now instead
 * (…/send-now), with the same webhook-id either way. After either, the log is drawn again with that
 * delivery's attempts open.
 */
import { EVENT_LABELS } from '../../events/catalogue.js';
import { type Page, problemText, rowsOf } from '../common/api.js';
import {
  type Attempt,
  attemptsTable,
  type Delivery,
  eventName,
  outcome,
  outcomeWithNext,
  STATUS_FILTER,
} from '../common/deliveries.js';
import { h, notice, sleep } from '../common/dom.js';
import { parts, t } from '../common/i18n.js';
import { type RetryAction, retryControl, retryReport } from '../common/retry.js';
import { when } from '../common/time.js';
import { empty, field, inlineForm, select, table } from '../common/widgets.js';
import { api, filterQuery, router, show, state } from './app.js';

/** A delivery of the portal's log: with what it was about, by name (null: a test ping, or a list or school that is gone). */
interface NamedDelivery extends Delivery {
  subject: { name: string; school?: string } | null;
}

interface DeliveryDetail extends NamedDelivery {
  attempts: Attempt[];
}

/** "ICT jaar 1 (Erasmus Lyceum)"; a test ping or a deleted subject by its kind and the start of its identifier. */
export function subjectText(d: NamedDelivery): string {
  if (d.subject !== null)
    return d.subject.school === undefined ? d.subject.name : `${d.subject.name} (${d.subject.school})`;
  if (d.event === 'ping') return t('pdel.testPing');
  return t('pdel.deleted', { resource: d.payload.resource, id: d.payload.identifier.slice(0, 8) });
}

async function showDelivery(id: string, target: HTMLElement, receiver: string | undefined): Promise<void> {
  const result = await api<DeliveryDetail>('GET', `/deliveries/${encodeURIComponent(id)}`);
  if (!result.ok) {
    target.replaceChildren(empty(problemText(result)));
    return;
  }
  const d = result.data;
  target.replaceChildren(
    h('div', { className: 'panel' }, [
      h('h2', { title: `${d.payload.resource} ${d.payload.identifier}` }, `${eventName(d.event)}: ${subjectText(d)}`),
      h(
        'p',
        {},
        parts(receiver === undefined ? 'pdel.detailNoReceiver' : 'pdel.detail', {
          outcome: outcome(d),
          receiver: h('span', { className: 'url' }, receiver ?? ''),
          when: when(d.createdAt),
          id: h('span', { className: 'id' }, d.id),
        }),
      ),
      attemptsTable(d.attempts),
    ]),
  );
}

/** The shared Retry / Retry now control (common/retry.ts); after either, the log again with this delivery open. */
function retryButton(d: Delivery, subscriptionDisabled: boolean): HTMLElement {
  const run = async (action: RetryAction) => {
    const result = await api<Delivery>('POST', `/deliveries/${encodeURIComponent(d.id)}/${action}`);
    if (!result.ok) {
      notice(t('common.retryFailed', { problem: problemText(result) }), true);
      return;
    }
    // Retry queues it: give the worker a moment to make the attempt (Retry now has made it already).
    if (action === 'retry') await sleep(1500);
    state.openDelivery = d.id;
    await show('deliveries', true);
    const report = retryReport(action, result.data);
    notice(report.text, report.kind);
  };
  return retryControl(d, run, { subscriptionDisabled });
}

function filterForm(root: HTMLElement): void {
  const f = state.deliveryFilter;
  const events = Object.keys(EVENT_LABELS).map((e) => [e, eventName(e)] as const);
  const event = select([['', t('pdel.anyEvent')], ...events], f.event ?? '', t('common.event'));
  const status = select(STATUS_FILTER, f.status ?? '', t('common.status'));
  const since = h('input', { type: 'datetime-local', value: f.sinceLocal ?? '' });
  const until = h('input', { type: 'datetime-local', value: f.untilLocal ?? '' });
  const apply = () => {
    state.deliveryFilter = {
      subscriptionId: f.subscriptionId,
      event: event.value,
      status: status.value,
      sinceLocal: since.value,
      untilLocal: until.value,
    };
    state.pages = [];
    return show('deliveries');
  };
  const fields = [
    field(t('common.event'), event),
    field(t('common.status'), status),
    field(t('common.from'), since),
    field(t('pdel.until'), until),
  ];
  root.append(inlineForm(fields, t('common.filter'), apply));
  if (f.subscriptionId) {
    const all = () => {
      state.deliveryFilter = {};
      state.pages = [];
      void show('deliveries');
    };
    root.append(
      h('p', { className: 'muted' }, [
        t('pdel.oneSubscription'),
        h('button', { type: 'button', className: 'secondary', onclick: all }, t('common.showAll')),
      ]),
    );
  }
}

export async function deliveries(root: HTMLElement): Promise<void> {
  root.append(h('h1', {}, t('pdel.title')));
  const f = state.deliveryFilter;
  filterForm(root);
  const query = new URLSearchParams({ limit: '20' });
  if (f.subscriptionId) query.set('subscriptionId', f.subscriptionId);
  if (f.event) query.set('event', f.event);
  if (f.status) query.set('status', f.status);
  if (f.sinceLocal) query.set('since', new Date(f.sinceLocal).toISOString());
  if (f.untilLocal) query.set('until', new Date(f.untilLocal).toISOString());
  const after = state.pages.at(-1);
  if (after) query.set('starting_after', after);
  const [result, subs] = await Promise.all([
    api<Page<NamedDelivery>>('GET', `/deliveries?${query.toString()}`),
    api<Page<{ id: string; notificationUrl: string; status: string }>>('GET', '/subscriptions?limit=100'),
  ]);
  if (!result.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(result) })));
    return;
  }
  const urls = new Map(rowsOf(subs).map((s) => [s.id, s.notificationUrl]));
  const disabled = new Set(
    rowsOf(subs)
      .filter((s) => s.status === 'disabled')
      .map((s) => s.id),
  );
  const rows = rowsOf(result);
  const detail = h('div', { id: 'delivery-detail' });
  const filtered = f.status || f.event || f.sinceLocal || f.untilLocal;
  root.append(
    table<NamedDelivery>(
      rows,
      [
        [t('common.created'), (d) => when(d.createdAt)],
        [t('common.event'), (d) => eventName(d.event)],
        [t('common.about'), subjectText],
        [t('common.receiver'), (d) => urls.get(d.subscriptionId) ?? t('common.deletedSubscription')],
        [t('common.attempts'), (d) => String(d.attemptCount)],
        [t('common.outcome'), outcomeWithNext],
        [
          t('common.actions'),
          (d) => [
            h(
              'button',
              {
                type: 'button',
                className: 'secondary',
                onclick: () => {
                  // The opened delivery has its own address (/portal/deliveries/<id>): Back closes it again.
                  router.record({ section: 'deliveries', id: d.id, query: filterQuery(state.deliveryFilter) });
                  return showDelivery(d.id, detail, urls.get(d.subscriptionId));
                },
              },
              t('common.attempts'),
            ),
            retryButton(d, disabled.has(d.subscriptionId)),
          ],
          'actions',
        ],
      ],
      filtered ? t('common.noDeliveryMatches') : t('pdel.none'),
    ),
  );
  const pager = h('div', { className: 'pager' });
  const page = (cursors: string[]) => () => {
    state.pages = cursors;
    void show('deliveries');
  };
  if (state.pages.length > 0)
    pager.append(h('button', { type: 'button', className: 'secondary', onclick: page([]) }, t('pdel.firstPage')));
  const last = rows.at(-1);
  if (result.data.has_more && last !== undefined)
    pager.append(
      h(
        'button',
        { type: 'button', className: 'secondary', onclick: page([...state.pages, last.id]) },
        t('pdel.nextPage'),
      ),
    );
  root.append(pager, detail);
  // Opened by a retry: drawn before the section replaces the page, so it lands in the visible element.
  if (state.openDelivery) {
    const id = state.openDelivery;
    state.openDelivery = '';
    await showDelivery(id, detail, urls.get(rows.find((d) => d.id === id)?.subscriptionId ?? ''));
  }
}
