/** Helpers of the event-feed tests: the feed's URL, reading it, and events written through the admin API. */
import { isoTime } from '../../src/clock.js';
import { events as emit } from '../../src/events/emitters.js';
import { recordEventFor } from '../../src/events/outbox.js';
import type { Harness, TestClient } from '../support/harness.js';
import type { Bearer } from '../support/requests.js';

export const FEED = '/api/lml/v1/events';

export interface FeedItemView {
  type: string;
  resource: string;
  identifier: string;
  id: string;
  event: string;
  occurredAt: string;
  cursor: string;
}

export interface FeedPageView {
  data: FeedItemView[];
  has_more: boolean;
  next: string;
}

/** One page as `who`; throws on anything but 200. */
export async function readFeed(h: Harness, who: Bearer, query: Record<string, string> = {}): Promise<FeedPageView> {
  const response = await h.as(who).get(FEED, { query });
  if (response.statusCode !== 200) throw new Error(`feed answered ${response.statusCode}: ${response.body}`);
  return response.json<FeedPageView>();
}

/** Every item from `after` on, following `next` page by page. */
export async function readAll(h: Harness, who: Bearer, query: Record<string, string> = {}): Promise<FeedItemView[]> {
  const items: FeedItemView[] = [];
  let page = await readFeed(h, who, query);
  items.push(...page.data);
  while (page.has_more) {
    page = await readFeed(h, who, { ...query, after: page.next });
    items.push(...page.data);
  }
  return items;
}

/** The events table in the feed's terms: (event, identifier) of every row, by the time it was recorded. */
export async function eventRows(
  h: Harness,
): Promise<{ id: string; name: string; identifier: string; created_at: number }[]> {
  return h.database.db.kysely
    .selectFrom('events')
    .select(['id', 'name', 'identifier', 'created_at'])
    .where('name', '!=', 'ping')
    .execute();
}

export async function createSchool(h: Harness, name: string): Promise<string> {
  const response = await h.asAdmin().post('/api/admin/v1/schools', { name, type: 'HBO' });
  if (response.statusCode !== 201) throw new Error(`school: ${response.body}`);
  return response.json<{ identifier: string }>().identifier;
}

export async function publishOffer(h: Harness, ean: string, price = 12.5): Promise<string> {
  const response = await h
    .asAdmin()
    .post('/api/admin/v1/offers', { ean, price, condition: 'good', status: 'published' });
  if (response.statusCode !== 201) throw new Error(`offer: ${response.body}`);
  return response.json<{ identifier: string }>().identifier;
}

/** subscription.failing about one of `client`'s subscriptions, as the delivery worker records it. */
export async function recordFailing(h: Harness, subscriptionId: string): Promise<void> {
  await h.database.db.kysely
    .transaction()
    .execute((trx) =>
      recordEventFor(trx, h.database.db.dialect, h.clock.now(), emit.subscriptionFailing(subscriptionId), []),
    );
}

/** A subscription row of `client`, written directly (its URL never called). */
export async function subscriptionOf(h: Harness, client: TestClient, id: string): Promise<string> {
  const now = h.clock.now();
  await h.database.db.kysely
    .insertInto('subscriptions')
    .values({
      id,
      client_ref: client.id,
      notification_url: `https://hooks.shop.example/${id}`,
      event: 'list.published',
      event_as_given: 'list.published',
      status: 'active',
      disabled_reason: null,
      failing_since: null,
      last_success_at: null,
      filter: null,
      filter_list: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

export const at = (h: Harness): string => isoTime(h.clock.now());
