/**
 * GET /api/lml/v1/events: pages in commit order, the item shape, cursors (400, 410), scopes and the
 * client's own operational events, types in both spellings, and the ETag.
 */
import { expect, it } from 'vitest';
import { isoTime } from '../../src/clock.js';
import { eanOf } from '../support/ean.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import {
  createSchool,
  eventRows,
  FEED,
  type FeedItemView,
  publishOffer,
  readAll,
  readFeed,
  recordFailing,
  subscriptionOf,
} from './feed-support.js';

const DAY_MS = 86_400_000;
const payloadOf = (item: FeedItemView) => ({ type: item.type, resource: item.resource, identifier: item.identifier });

describeEachEngine('event feed', (engine) => {
  const h = useHarness(engine, { client: { scopes: ['lml:read', 'offers:read'] } });

  it('pages the events oldest first: each item is the webhook body plus id, event, occurredAt and cursor', async () => {
    const first = await createSchool(h, 'Alfa College');
    h.clock.advance(1000);
    const second = await createSchool(h, 'Beta Lyceum');
    h.clock.advance(1000);
    const third = await createSchool(h, 'Gamma School');
    const rows = await eventRows(h);
    const idOf = (identifier: string) => rows.find((row) => row.identifier === identifier)?.id;

    const page = await readFeed(h, h.client, { limit: '2' });
    expect(page.has_more).toBe(true);
    expect(page.data).toEqual([
      {
        type: 'created',
        resource: 'school',
        identifier: first,
        id: idOf(first),
        event: 'school.created',
        occurredAt: '2026-09-01T08:00:00.000Z',
        cursor: page.data[0]?.cursor,
      },
      {
        type: 'created',
        resource: 'school',
        identifier: second,
        id: idOf(second),
        event: 'school.created',
        occurredAt: '2026-09-01T08:00:01.000Z',
        cursor: page.data[1]?.cursor,
      },
    ]);
    expect(page.next).toBe(page.data[1]?.cursor);

    const rest = await readFeed(h, h.client, { after: page.next });
    expect(rest.data.map((item) => [item.identifier, item.event])).toEqual([[third, 'school.created']]);
    expect(rest.has_more).toBe(false);
    // `next` is there on the last page too, and after it nothing is new.
    const after = await readFeed(h, h.client, { after: rest.next });
    expect(after).toEqual({ data: [], has_more: false, next: rest.next });
    // An item's cursor continues right after that item.
    const fromFirst = await readFeed(h, h.client, { after: page.data[0]?.cursor ?? '' });
    expect(fromFirst.data.map((item) => item.identifier)).toEqual([second, third]);
  });

  it('types filters in both spellings, and an unknown type is a 400 naming the accepted ones', async () => {
    const school = await createSchool(h, 'Alfa College');
    const offer = await publishOffer(h, eanOf(1));
    const hyphenated = await readAll(h, h.client, { types: 'offer-published' });
    expect(hyphenated.map((item) => [item.event, item.identifier])).toEqual([['offer.published', offer]]);
    const both = await readAll(h, h.client, { types: 'school-created, offer.status' });
    expect(both.map((item) => [item.event, item.type, item.identifier])).toEqual([
      ['school.created', 'created', school],
      ['offer.status', 'published', offer],
    ]);
    const unknown = await h.as(h.client).get(FEED, { query: { types: 'school.deleted' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({
      code: 'validation-failed',
      detail: expect.stringContaining('"school.deleted" is not an event'),
      acceptedEvents: expect.arrayContaining(['school.created', 'school-created']),
      errors: [{ location: 'querystring', path: '/types' }],
    });
  });

  it('shows LML events with lml:read and offer events with offers:read; a type outside the scopes is a 403', async () => {
    const school = await createSchool(h, 'Alfa College');
    const offer = await publishOffer(h, eanOf(1));
    const lmlOnly = await createClientWithToken(h, 'School portal', ['lml:read']);
    const offersOnly = await createClientWithToken(h, 'Price site', ['offers:read']);
    const webhooksOnly = await createClientWithToken(h, 'Hooks only', ['webhooks:manage']);

    expect((await readAll(h, lmlOnly)).map((item) => [item.event, item.identifier])).toEqual([
      ['school.created', school],
    ]);
    expect((await readAll(h, offersOnly)).map((item) => [item.event, item.identifier])).toEqual([
      ['offer.published', offer],
      ['offer.status', offer],
    ]);
    const asked = await h.as(lmlOnly).get(FEED, { query: { types: 'offer.published' } });
    expect(asked.statusCode).toBe(403);
    expect(asked.json()).toMatchObject({
      code: 'insufficient-scope',
      detail: 'offer.published events need the scope offers:read',
      requiredScope: 'offers:read',
    });
    const none = await h.as(webhooksOnly).get(FEED);
    expect(none.statusCode).toBe(403);
    expect(none.json()).toMatchObject({
      code: 'insufficient-scope',
      detail: 'this call needs one of the scopes lml:read offers:read',
    });
    expect((await h.anonymous().get(FEED)).statusCode).toBe(401);
  });

  it('shows subscription.failing only to the client whose subscription it names', async () => {
    const other = await createClientWithToken(h, 'Other shop', ['lml:read']);
    const mine = await subscriptionOf(h, h.client, 'sub_mine0000000000000000001');
    const theirs = await subscriptionOf(h, other, 'sub_theirs00000000000000001');
    await recordFailing(h, mine);
    await recordFailing(h, theirs);
    const seenByMe = await readAll(h, h.client);
    expect(seenByMe.map((item) => [item.event, item.identifier])).toEqual([['subscription.failing', mine]]);
    const seenByOther = await readAll(h, other, { types: 'subscription-failing' });
    expect(seenByOther.map((item) => [item.event, item.identifier])).toEqual([['subscription.failing', theirs]]);
    expect(payloadOf(seenByOther[0] as FeedItemView)).toEqual({
      type: 'failing',
      resource: 'subscription',
      identifier: theirs,
    });
  });

  it('answers 400 for a value that is not a cursor', async () => {
    for (const after of ['nonsense', Buffer.from('e1.1').toString('base64url'), 'e1.0.0', 'x'.repeat(100)]) {
      const response = await h.as(h.client).get(FEED, { query: { after } });
      expect(response.statusCode, after).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'validation-failed',
        errors: [{ location: 'querystring', path: '/after' }],
      });
    }
  });

  it('answers 410 for a cursor older than the event retention, saying where the feed now starts', async () => {
    await createSchool(h, 'Alfa College');
    const page = await readFeed(h, h.client);
    // The default event retention is the longer delivery retention: 90 days.
    h.clock.advance(89 * DAY_MS);
    const kept = await createSchool(h, 'Beta Lyceum');
    // Tokens live an hour: a reader of a later day has a new one.
    const later = await createClientWithToken(h, 'Later', ['lml:read']);
    expect((await readFeed(h, later, { after: page.next })).data.map((item) => item.identifier)).toEqual([kept]);
    h.clock.advance(2 * DAY_MS);
    const reader = await createClientWithToken(h, 'Even later', ['lml:read']);
    const gone = await h.as(reader).get(FEED, { query: { after: page.next } });
    expect(gone.statusCode).toBe(410);
    expect(gone.headers['content-type']).toContain('application/problem+json');
    const problem = gone.json();
    expect(problem).toMatchObject({
      code: 'cursor-expired',
      status: 410,
      retentionDays: 90,
      feedStartsAt: '2026-09-01T08:00:00.000Z',
    });
    expect(problem.detail).toContain('older than the event retention of 90 days');
    // The start cursor reads the feed from its oldest event kept.
    const restart = await readFeed(h, reader, { after: problem.start });
    expect(restart.data).toHaveLength(2);
    // A reader that keeps polling a quiet feed never goes stale: each answer's `next` is dated today.
    for (let day = 0; day < 95; day += 30) {
      h.clock.advance(30 * DAY_MS);
      const polling = await createClientWithToken(h, `Poller ${day}`, ['lml:read']);
      const polled = await readFeed(h, polling, { after: restart.next });
      expect(polled.data).toEqual([]);
      restart.next = polled.next;
    }
    expect(isoTime(h.clock.now())).toBe('2027-03-31T08:00:00.000Z');
  });

  it('answers 304 to If-None-Match while nothing changed', async () => {
    await createSchool(h, 'Alfa College');
    const first = await h.as(h.client).get(FEED);
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    const again = await h.as(h.client).get(FEED, { headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    await createSchool(h, 'Beta Lyceum');
    expect((await h.as(h.client).get(FEED, { headers: { 'if-none-match': etag } })).statusCode).toBe(200);
  });
});
