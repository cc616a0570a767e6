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
import { t } from '../common/i18n.js';
import { type ListChoice, subscriptionForm } from '../common/subscription-form.js';
import { field, select } from '../common/widgets.js';
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
    return t('form.onlyEansText', { count: filter.eans.length, eans: shown });
  }
  const list = lists.find((l) => l.identifier === filter.list);
  const named =
    list === undefined ? t('form.listShort', { id: filter.list.slice(0, 8) }) : `${list.name} (${list.school})`;
  return t('form.onlyItemsOf', { list: named });
}

/** The form, or a line saying what to do first when no client can receive webhooks. */
export async function newSubscription(lists: readonly ListChoice[]): Promise<HTMLElement> {
  const active = rowsOf(await api<Page<ClientView>>('GET', '/clients')).filter((c) => c.status === 'active');
  if (active.length === 0) return h('p', { className: 'empty' }, t('subs.noActiveClient'));
  const wanted = state.query.client ?? '';
  const first = active.find((c) => c.id === wanted || c.clientId === wanted) ?? active[0];
  const client = select(
    active.map((c) => [c.id, c.name] as const),
    first?.id ?? '',
    t('common.client'),
  );
  client.name = 'client';
  const form = subscriptionForm({
    lists,
    label: t('subs.subscribeClient'),
    submit: async (input) => {
      const created = await api<{ client: { name: string } }>('POST', '/subscriptions', {
        clientId: client.value,
        ...input,
      });
      if (!created.ok) {
        notice(t('common.subscriptionNotCreated'), true);
        return created;
      }
      const said = { name: created.data.client.name, url: input.notificationUrl, event: eventName(input.event) };
      await show('subscriptions', true);
      notice(created.status === 201 ? t('subs.subscribed', said) : t('subs.alreadySubscribed', said));
      return null;
    },
  });
  form.prepend(field(t('common.client'), client));
  return h('div', { className: 'new-subscription' }, [h('h2', {}, t('subs.new')), form]);
}
