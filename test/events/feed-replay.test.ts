/**
 * Replay into a subscription: created with replayFrom a week back, it receives exactly the matching
 * past events (its filter included), signed as usual, in feed order, then live ones, with no gap and no
 * duplicate at the seam (an event whose transaction is open while the subscription is created included);
 * POST …/{id}/replay for an existing subscription; the bound (422) and the refusals.
 */
import { expect, it } from 'vitest';
import { isoTime } from '../../src/clock.js';
import { events as emit } from '../../src/events/emitters.js';
import { recordEvents } from '../../src/events/outbox.js';
import { MAX_REPLAY_EVENTS } from '../../src/subscriptions/replay.js';
import { deliverOnce, type Receiver, startReceiver, verifyWebhook } from '../delivery/support.js';
import { eanOf } from '../support/ean.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, type Harness, type TestClient } from '../support/harness.js';
import { openTransaction } from '../support/open-transaction.js';
import { useHarness } from '../support/use-harness.js';
import { createSchool, type FeedItemView, publishOffer, readAll } from './feed-support.js';

const DAY_MS = 86_400_000;
const SUBSCRIPTIONS = '/api/lml/v1/subscriptions';

describeEachEngine('replay into a subscription', (engine) => {
  const h = useHarness(engine, { config: { webhookAllowPrivate: true } });
  let receiver: Receiver;
  const now = Date.now();

  /** Past events at the given days ago (the clock is set back for each), then the clock at now. */
  async function past(days: number, write: (h: Harness) => Promise<string>): Promise<string> {
    h.clock.set(now - days * DAY_MS);
    const identifier = await write(h);
    h.clock.set(now);
    return identifier;
  }
  /** A client (token minted at now) and a receiver whose answers are all 200. */
  async function setUp(): Promise<TestClient> {
    h.clock.set(now);
    receiver = await startReceiver();
    return createClientWithToken(h, 'Back office', ['lml:read', 'offers:read', 'webhooks:manage']);
  }
  const bodies = () => receiver.received.map((request) => JSON.parse(request.body) as { identifier: string });
  const drain = async (): Promise<void> => {
    while ((await deliverOnce(h)) > 0);
  };

  it('replayFrom a week back: exactly the matching past events, signed, in feed order, then live ones', async () => {
    await past(8, (h) => createSchool(h, 'Too old'));
    const first = await past(6, (h) => createSchool(h, 'Alfa'));
    const second = await past(2, (h) => createSchool(h, 'Beta'));
    await past(1, (h) => publishOffer(h, eanOf(1)));
    const client = await setUp();
    try {
      const created = await h.as(client).post(SUBSCRIPTIONS, {
        notificationUrl: receiver.url,
        event: 'school-created',
        replayFrom: isoTime(now - 7 * DAY_MS),
      });
      expect(created.statusCode).toBe(201);
      await drain();
      expect(bodies()).toEqual([
        { type: 'created', resource: 'school', identifier: first },
        { type: 'created', resource: 'school', identifier: second },
      ]);
      for (const request of receiver.received) verifyWebhook(request, client.webhookSecret);
      const feed = await readAll(h, client, { types: 'school.created' });
      const idOf = (identifier: string) => feed.find((item: FeedItemView) => item.identifier === identifier)?.id;
      expect(receiver.received.map((request) => request.headers['x-hook-event-id'])).toEqual([
        idOf(first),
        idOf(second),
      ]);
      const live = await createSchool(h, 'Gamma');
      await drain();
      expect(bodies().map((body) => body.identifier)).toEqual([first, second, live]);
    } finally {
      await receiver.close();
    }
  });

  it("applies the subscription's filter to past events as to live ones", async () => {
    const wanted = eanOf(1);
    await past(3, (h) => publishOffer(h, eanOf(2)));
    const offer = await past(2, (h) => publishOffer(h, wanted));
    const client = await setUp();
    try {
      const created = await h.as(client).post(SUBSCRIPTIONS, {
        notificationUrl: receiver.url,
        event: 'offer.published',
        filter: { eans: [wanted] },
        replayFrom: isoTime(now - 7 * DAY_MS),
      });
      expect(created.statusCode).toBe(201);
      await drain();
      expect(bodies()).toEqual([{ type: 'published', resource: 'offer', identifier: offer }]);
    } finally {
      await receiver.close();
    }
  });

  it('leaves no gap and no duplicate at the seam: an event committing while the subscription is made arrives once', async () => {
    const before = await past(1, (h) => createSchool(h, 'Before'));
    const client = await setUp();
    try {
      // A writer that fanned out before the subscription existed, and commits after it was created.
      const late = emit.schoolCreated('0123456789abcdef0123456789abcdef');
      const open = await openTransaction(h.database.db.kysely, (trx) =>
        recordEvents(trx, h.database.db.dialect, h.clock.now(), [late]),
      );
      const creating = h.as(client).post(SUBSCRIPTIONS, {
        notificationUrl: receiver.url,
        event: 'school.created',
        replayFrom: isoTime(now - DAY_MS - 1000),
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await open.commit();
      expect((await creating).statusCode).toBe(201);
      const after = await createSchool(h, 'After');
      await drain();
      expect(bodies().map((body) => body.identifier)).toEqual([before, late.identifier, after]);
    } finally {
      await receiver.close();
    }
  });

  it('POST …/{id}/replay queues the past events again after a cursor, and not those still pending', async () => {
    const client = await setUp();
    try {
      const first = await createSchool(h, 'Alfa');
      const [cursorAfterFirst] = (await readAll(h, client)).map((item) => item.cursor);
      const second = await createSchool(h, 'Beta');
      const created = await h
        .as(client)
        .post(SUBSCRIPTIONS, { notificationUrl: receiver.url, event: 'school.created' });
      const id = created.json<{ id: string }>().id;
      const replayed = await h.as(client).post(`${SUBSCRIPTIONS}/${id}/replay`, { from: cursorAfterFirst as string });
      expect(replayed.statusCode).toBe(202);
      expect(replayed.json()).toEqual({ queued: 1, until: expect.any(String) });
      // Asked again while that delivery is pending: nothing more.
      const again = await h.as(client).post(`${SUBSCRIPTIONS}/${id}/replay`, { from: cursorAfterFirst as string });
      expect(again.json()).toMatchObject({ queued: 0 });
      await drain();
      expect(bodies().map((body) => body.identifier)).toEqual([second]);
      // Once delivered, a replay sends it again (the receiver asked for it).
      const fromStart = await h.as(client).post(`${SUBSCRIPTIONS}/${id}/replay`, { from: isoTime(now - DAY_MS) });
      expect(fromStart.json()).toMatchObject({ queued: 2 });
      await drain();
      expect(bodies().map((body) => body.identifier)).toEqual([second, first, second]);
    } finally {
      await receiver.close();
    }
  });

  it(`refuses a replay of more than ${MAX_REPLAY_EVENTS} events with a 422 naming the bound, and creates nothing`, async () => {
    const client = await setUp();
    try {
      const many = Array.from({ length: MAX_REPLAY_EVENTS + 1 }, (_, i) =>
        emit.schoolCreated(i.toString(16).padStart(32, '0')),
      );
      await h.database.db.kysely
        .transaction()
        .execute((trx) => recordEvents(trx, h.database.db.dialect, h.clock.now(), many));
      const refused = await h.as(client).post(SUBSCRIPTIONS, {
        notificationUrl: receiver.url,
        event: 'school.created',
        replayFrom: isoTime(now - DAY_MS),
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toMatchObject({
        code: 'replay-too-large',
        limit: MAX_REPLAY_EVENTS,
        detail: expect.stringContaining(`a replay queues at most ${MAX_REPLAY_EVENTS}`),
      });
      const rows = await h.database.db.kysely.selectFrom('subscriptions').select('id').execute();
      expect(rows).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it("answers 400 for a replayFrom that is neither a time nor a cursor, and 404 for another client's subscription", async () => {
    const client = await setUp();
    try {
      const bad = await h.as(client).post(SUBSCRIPTIONS, {
        notificationUrl: receiver.url,
        event: 'school.created',
        replayFrom: 'last week',
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({
        code: 'validation-failed',
        errors: [{ location: 'body', path: '/replayFrom' }],
      });
      const created = await h
        .as(client)
        .post(SUBSCRIPTIONS, { notificationUrl: receiver.url, event: 'school.created' });
      const other = await createClientWithToken(h, 'Other', ['webhooks:manage']);
      const theirs = await h
        .as(other)
        .post(`${SUBSCRIPTIONS}/${created.json<{ id: string }>().id}/replay`, { from: isoTime(now) });
      expect(theirs.statusCode).toBe(404);
    } finally {
      await receiver.close();
    }
  });
});
