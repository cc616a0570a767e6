/**
 * The page of one client (/dashboard/clients/<id>) and of one subscription (/dashboard/subscriptions/<id>):
 * what it is, and its History panel (src/web/common/history.ts). Their sections link each row here.
 */
import type { ClientView } from '../../auth/client-schemas.js';
import type { AdminSubscriptionView } from '../../subscriptions/schemas.js';
import { problemText } from '../common/api.js';
import { h } from '../common/dom.js';
import { historyPanel } from '../common/history.js';
import { stateBadge } from '../common/states.js';
import { when } from '../common/time.js';
import { empty } from '../common/widgets.js';
import { api, link } from './app.js';

const facts = (pairs: readonly (readonly [string, HTMLElement | string])[]): HTMLElement =>
  h(
    'dl',
    { className: 'facts panel' },
    pairs.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );

export async function clientPage(root: HTMLElement, id: string): Promise<void> {
  const back = h('p', {}, link({ section: 'clients' }, '← API clients'));
  const result = await api<ClientView>('GET', `/clients/${encodeURIComponent(id)}`);
  if (!result.ok) {
    root.append(back, h('h1', {}, 'Client'), empty(`Could not load client ${id}: ${problemText(result)}`));
    return;
  }
  const client = result.data;
  root.append(
    back,
    h('h1', {}, client.name),
    facts([
      ['Status', stateBadge('client', client.status)],
      ['Client ID', h('code', { className: 'id' }, client.clientId)],
      ['Scopes', client.scopes.join(', ')],
      ['Created', when(client.createdAt)],
      ['Identifier', h('code', { className: 'id' }, client.id)],
    ]),
    await historyPanel(api, 'client', client.id),
  );
}

export async function subscriptionPage(root: HTMLElement, id: string): Promise<void> {
  const back = h('p', {}, link({ section: 'subscriptions' }, '← Webhook subscriptions'));
  const result = await api<AdminSubscriptionView>('GET', `/subscriptions/${encodeURIComponent(id)}`);
  if (!result.ok) {
    root.append(back, h('h1', {}, 'Subscription'), empty(`Could not load subscription ${id}: ${problemText(result)}`));
    return;
  }
  const subscription = result.data;
  root.append(
    back,
    h('h1', {}, `${subscription.client.name} → ${subscription.canonicalEvent}`),
    facts([
      ['Status', stateBadge('subscription', subscription.status)],
      ['Receiver', subscription.notificationUrl],
      ['Client', link({ section: 'clients', id: subscription.client.id }, subscription.client.name)],
      ['Created', when(subscription.createdAt)],
      ['Identifier', h('code', { className: 'id' }, subscription.id)],
    ]),
    await historyPanel(api, 'subscription', subscription.id),
  );
}
