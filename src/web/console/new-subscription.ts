/**
 * Subscribing a receiver on a client's behalf (issue 34.6): the portal's own form (common/
 * subscription-form.ts: receiver URL, event, the offer filter, refusals under their field), with the
 * client chosen first. The admin API applies the client's rules (POST /api/admin/v1/subscriptions).
 */
import type { ClientView } from '../../auth/client-schemas.js';
import type { ListView } from '../../lml/schemas.js';
import { type Page, rowsOf } from '../common/api.js';
import { eventName } from '../common/deliveries.js';
import { h, notice } from '../common/dom.js';
import { type ListChoice, subscriptionForm } from '../common/subscription-form.js';
import { field, select } from '../common/widgets.js';
import { api, show, state } from './app.js';

/** The form, or a line saying what to do first when no client can receive webhooks. */
export async function newSubscription(): Promise<HTMLElement> {
  const [clientsResult, listsResult] = await Promise.all([
    api<Page<ClientView>>('GET', '/clients'),
    api<Page<ListView>>('GET', '/lists?limit=200'),
  ]);
  const active = rowsOf(clientsResult).filter((c) => c.status === 'active');
  if (active.length === 0)
    return h('p', { className: 'empty' }, 'No active client yet: create one under Clients, then subscribe it here.');
  const lists: ListChoice[] = rowsOf(listsResult).map((l) => ({
    identifier: l.identifier,
    name: l.name,
    school: l.school.name,
  }));
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
  return h('div', { className: 'panel new-subscription' }, [h('h2', {}, 'New subscription'), form]);
}
