/**
 * Subscribing a receiver on a client's behalf: the portal's own form (common/
 * subscription-form.ts: receiver URL, event, the offer filter, refusals under their field), with the
 * client chosen first. The admin API applies the client's rules (POST /api/admin/v1/subscriptions).
 */
import type { ClientView } from '../../auth/client-schemas.js';
import type { ListView } from '../../lml/schemas.js';
import type { SubscriptionFilter } from '../../subscriptions/filter-schema.js';
import { type Page, rowsOf } from '../common/api.js';
import { eventName } from '../common/deliveries.js';
import { h, notice } from '../common/dom.js';
import { type ListChoice, subscriptionForm } from '../common/subscription-form.js';
import { field, plural, select } from '../common/widgets.js';
import { api, show, state } from './app.js';

/** The lists a filter may follow, for the form's picker and for naming a filter's list. */
export async function listChoices(): Promise<ListChoice[]> {
  const result = await api<Page<ListView>>('GET', '/lists?limit=200');
  return rowsOf(result).map((l) => ({ identifier: l.identifier, name: l.name, school: l.school.name }));
}

/** "only 2 EANs: …", "only the items of vwo 4 (Erasmus Lyceum)": what a filtered subscription receives. */
export function filterText(filter: SubscriptionFilter | undefined, lists: readonly ListChoice[]): string | null {
  if (filter === undefined) return null;
  if ('eans' in filter) {
    const shown = filter.eans.slice(0, 3).join(', ') + (filter.eans.length > 3 ? ', …' : '');
    return `only ${plural(filter.eans.length, 'EAN', 'EANs')}: ${shown}`;
  }
  const list = lists.find((l) => l.identifier === filter.list);
  return `only the items of ${list === undefined ? `list ${filter.list.slice(0, 8)}…` : `${list.name} (${list.school})`}`;
}

/** The form, or a line saying what to do first when no client can receive webhooks. */
export async function newSubscription(lists: readonly ListChoice[]): Promise<HTMLElement> {
  const active = rowsOf(await api<Page<ClientView>>('GET', '/clients')).filter((c) => c.status === 'active');
  if (active.length === 0)
    return h('p', { className: 'empty' }, 'No active client yet: create one under Clients, then subscribe it here.');
  const wanted = state.query.client ?? '';
  const first = active.find((c) => c.id === wanted || c.clientId === wanted) ?? active[0];
  const client = select(
    active.map((c) => [c.id, c.name] as const),
    first?.id ?? '',
    'Client',
  );
  client.name = 'client';
  const form = subscriptionForm({
    lists,
    label: 'Subscribe client',
    submit: async (input) => {
      const created = await api<{ client: { name: string } }>('POST', '/subscriptions', {
        clientId: client.value,
        ...input,
      });
      if (!created.ok) {
        notice('Subscription not created: see the form.', true);
        return created;
      }
      const verb = created.status === 201 ? 'Subscribed' : 'Already subscribed:';
      await show('subscriptions', true);
      notice(`${verb} ${created.data.client.name} → ${input.notificationUrl} to ${eventName(input.event)}.`);
      return null;
    },
  });
  form.prepend(field('Client', client));
  return h('div', { className: 'new-subscription' }, [h('h2', {}, 'New subscription'), form]);
}
