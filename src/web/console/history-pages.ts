/**
 * The page of one client (/dashboard/clients/<id>) and of one subscription (/dashboard/subscriptions/<id>):
 * what it is, and its History panel (src/web/common/history.ts). Their sections link each row here, and
 * the audit records link here what they name.
 */
import type { ClientView } from '../../auth/client-schemas.js';
import type { AdminSubscriptionView } from '../../subscriptions/schemas.js';
import { problemText } from '../common/api.js';
import { h } from '../common/dom.js';
import { type HistoryLinks, historyPanel, type SubjectLink } from '../common/history.js';
import { t } from '../common/i18n.js';
import { stateBadge } from '../common/states.js';
import { when } from '../common/time.js';
import { empty } from '../common/widgets.js';
import { api, link } from './app.js';

/** The console's page of each kind of subject that has one (a list's is in the lists section). */
const PAGES: Readonly<Record<string, string>> = {
  client: 'clients',
  subscription: 'subscriptions',
  list: 'lml',
  delivery: 'deliveries',
};

/** A subject's name linked to its page where the console has one. */
export const subjectLink: SubjectLink = (type, id, text) => {
  const section = PAGES[type];
  return section === undefined ? text : link({ section, id }, text);
};

/** A History panel's links: what its records name, and every record of its resource on the Audit page. */
export const historyLinks: HistoryLinks = {
  subject: subjectLink,
  records: (targetType, targetId, text) => link({ section: 'audit', query: { targetType, targetId } }, text),
};

const facts = (pairs: readonly (readonly [string, HTMLElement | string])[]): HTMLElement =>
  h(
    'dl',
    { className: 'facts panel' },
    pairs.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );

export async function clientPage(root: HTMLElement, id: string): Promise<void> {
  const back = h('p', {}, link({ section: 'clients' }, t('clients.back')));
  const result = await api<ClientView>('GET', `/clients/${encodeURIComponent(id)}`);
  if (!result.ok) {
    root.append(
      back,
      h('h1', {}, t('clients.one')),
      empty(t('clients.couldNotLoad', { id, problem: problemText(result) })),
    );
    return;
  }
  const client = result.data;
  root.append(
    back,
    h('h1', {}, client.name),
    facts([
      [t('common.status'), stateBadge('client', client.status)],
      [t('clients.clientId'), h('code', { className: 'id' }, client.clientId)],
      [t('clients.scopes'), client.scopes.join(', ')],
      [t('common.created'), when(client.createdAt)],
      [t('common.identifier'), h('code', { className: 'id' }, client.id)],
    ]),
    await historyPanel(api, 'client', client.id, historyLinks),
  );
}

export async function subscriptionPage(root: HTMLElement, id: string): Promise<void> {
  const back = h('p', {}, link({ section: 'subscriptions' }, t('subs.back')));
  const result = await api<AdminSubscriptionView>('GET', `/subscriptions/${encodeURIComponent(id)}`);
  if (!result.ok) {
    root.append(back, h('h1', {}, t('subs.one')), empty(t('subs.couldNotLoad', { id, problem: problemText(result) })));
    return;
  }
  const subscription = result.data;
  root.append(
    back,
    h('h1', {}, `${subscription.client.name} → ${subscription.canonicalEvent}`),
    facts([
      [t('common.status'), stateBadge('subscription', subscription.status)],
      [t('common.receiver'), subscription.notificationUrl],
      [t('common.client'), link({ section: 'clients', id: subscription.client.id }, subscription.client.name)],
      [t('common.created'), when(subscription.createdAt)],
      [t('common.identifier'), h('code', { className: 'id' }, subscription.id)],
    ]),
    await historyPanel(api, 'subscription', subscription.id, historyLinks),
  );
}
