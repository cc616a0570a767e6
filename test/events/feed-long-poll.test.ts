/**
 * Long-poll on the event feed (one node; the cross-node wake-up is in feed-cluster.test.ts): a held
 * request answers when an event becomes visible or when its time is up, counts against its client's
 * cap (429 beyond it), and is answered at once when the server shuts down.
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { until } from '../support/until.js';
import { useHarness } from '../support/use-harness.js';
import { createSchool, FEED, type FeedPageView, readFeed } from './feed-support.js';

describeEachEngine('event feed long-poll', (engine) => {
  const h = useHarness(engine, { client: { scopes: ['lml:read'] }, config: { eventsMaxWaitingPerClient: 2 } });
  const waiting = () => h.services.eventFeed.waiters.waiting;

  it('holds a request with wait until an event is visible, then answers with it', async () => {
    const start = await readFeed(h, h.client);
    const held = h.as(h.client).get(FEED, { query: { after: start.next, wait: '10' } });
    await until(() => waiting() === 1, 'the request waits');
    const began = Date.now();
    const school = await createSchool(h, 'Alfa College');
    const answer = await held;
    expect(Date.now() - began).toBeLessThan(2000);
    expect(answer.statusCode).toBe(200);
    const page = answer.json<FeedPageView>();
    expect(page.data.map((item) => [item.event, item.identifier])).toEqual([['school.created', school]]);
    expect(page.has_more).toBe(false);
    expect(waiting()).toBe(0);
  });

  it('answers an empty page with the same next when nothing arrives within wait seconds', async () => {
    await createSchool(h, 'Alfa College');
    const start = await readFeed(h, h.client);
    const began = Date.now();
    const answer = await h.as(h.client).get(FEED, { query: { after: start.next, wait: '1' } });
    expect(Date.now() - began).toBeGreaterThanOrEqual(950);
    expect(answer.json()).toEqual({ data: [], has_more: false, next: start.next });
  });

  it('answers at once when events are already there, whatever wait says', async () => {
    const school = await createSchool(h, 'Alfa College');
    const began = Date.now();
    const page = (await h.as(h.client).get(FEED, { query: { wait: '30' } })).json<FeedPageView>();
    expect(Date.now() - began).toBeLessThan(1000);
    expect(page.data.map((item) => item.identifier)).toEqual([school]);
  });

  it("caps a client's waiting requests: beyond EVENTS_MAX_WAITING_PER_CLIENT a 429 that says why", async () => {
    const start = await readFeed(h, h.client);
    const query = { after: start.next, wait: '10' };
    const first = h.as(h.client).get(FEED, { query });
    const second = h.as(h.client).get(FEED, { query });
    await until(() => waiting() === 2, 'two requests wait');
    const third = await h.as(h.client).get(FEED, { query });
    expect(third.statusCode).toBe(429);
    expect(third.headers['retry-after']).toBe('1');
    expect(third.json()).toMatchObject({
      code: 'rate-limited',
      status: 429,
      limit: 2,
      detail:
        'at most 2 waiting requests (wait > 0) per client at a time on a node (EVENTS_MAX_WAITING_PER_CLIENT); this client has 2: follow the feed with one request at a time',
    });
    // Another client has its own count, and a request without wait is never counted.
    const other = await createClientWithToken(h, 'Other shop', ['lml:read']);
    const others = h.as(other).get(FEED, { query });
    expect((await h.as(h.client).get(FEED, { query: { after: start.next } })).statusCode).toBe(200);
    await until(() => waiting() === 3, 'the other client waits too');
    await createSchool(h, 'Alfa College');
    for (const answer of await Promise.all([first, second, others])) expect(answer.statusCode).toBe(200);
    expect(waiting()).toBe(0);
    // The count went down with the answers: two may wait again.
    const again = h.as(h.client).get(FEED, { query: { after: (await readFeed(h, h.client)).next, wait: '1' } });
    expect((await again).statusCode).toBe(200);
  });

  it('stops counting a waiting request whose client went away', async () => {
    const url = await h.listen();
    const start = await readFeed(h, h.client);
    const gone = new AbortController();
    const held = fetch(`${url}${FEED}?after=${start.next}&wait=30`, {
      headers: h.client.bearer,
      signal: gone.signal,
    }).catch((error: unknown) => error);
    await until(() => waiting() === 1, 'the request waits');
    gone.abort();
    await held;
    await until(() => waiting() === 0, 'the waiter released');
    // Its place against the cap is free again: two may wait.
    const query = { after: start.next, wait: '1' };
    const answers = await Promise.all([h.as(h.client).get(FEED, { query }), h.as(h.client).get(FEED, { query })]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
  });

  it('answers held requests at once on shutdown, with an empty page and their next', async () => {
    const start = await readFeed(h, h.client);
    const held = h.as(h.client).get(FEED, { query: { after: start.next, wait: '30' } });
    await until(() => waiting() === 1, 'the request waits');
    const began = Date.now();
    const closing = h.app.close();
    const answer = await held;
    await closing;
    expect(Date.now() - began).toBeLessThan(2000);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ data: [], has_more: false, next: start.next });
    expect(waiting()).toBe(0);
  });
});
