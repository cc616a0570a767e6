/** client.events against a real Shelfmark: a page, and the stream that long-polls, resumes and hands out cursors. */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../../../test/support/engines.js';
import { ApiError, type FeedEvent, ShelfmarkClient } from '../src/index.js';
import { type Served, serve } from './support.js';

describeEachEngine('client.events', (engine) => {
  let s: Served;
  let sdk: ShelfmarkClient;

  beforeEach(async () => {
    s = await serve(engine);
    const credentials = await s.newClient('Feed reader', ['lml:read']);
    sdk = new ShelfmarkClient({
      baseUrl: s.url,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
    });
  });
  afterEach(async () => {
    // A stream stopped between two requests can leave a connection (the test's own client) opened for
    // the next one with no request on it, which the server's close waits for (headersTimeout): once
    // the close has begun, the test ends its connections.
    const closing = s.h.app.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    s.h.app.server.closeAllConnections();
    await closing;
    await s.h.close();
  });

  const createSchool = async (name: string): Promise<string> => {
    const created = await s.admin('POST', '/schools', { name, type: 'VO' });
    expect(created.statusCode).toBe(201);
    return created.json<{ identifier: string }>().identifier;
  };

  it('list() reads a page; next continues it', async () => {
    const first = await createSchool('Alfa');
    const second = await createSchool('Beta');
    const page = await sdk.events.list({ limit: 1 });
    expect(page.has_more).toBe(true);
    expect(page.data.map((item) => [item.event, item.identifier])).toEqual([['school.created', first]]);
    const rest = await sdk.events.list({ after: page.next });
    expect(rest.data.map((item) => item.identifier)).toEqual([second]);
    expect(rest.has_more).toBe(false);
  });

  it('stream() yields every event in order, waits for new ones, and hands each cursor to onCursor', async () => {
    const before = await createSchool('Alfa');
    const stop = new AbortController();
    const cursors: string[] = [];
    const seen: FeedEvent[] = [];
    const reading = (async () => {
      for await (const event of sdk.events.stream({
        signal: stop.signal,
        waitSeconds: 5,
        limit: 1,
        onCursor: (cursor) => void cursors.push(cursor),
      })) {
        seen.push(event);
        if (seen.length === 1) void createSchool('Beta');
        if (seen.length === 2) stop.abort();
      }
    })();
    await reading;
    expect(seen.map((event) => [event.event, event.identifier])).toEqual([
      ['school.created', before],
      ['school.created', seen[1]?.identifier],
    ]);
    expect(cursors.slice(0, 2)).toEqual(seen.map((event) => event.cursor));
    // Resuming from the last cursor persisted: nothing is seen twice.
    const after = await sdk.events.list({ after: cursors.at(-1) as string });
    expect(after.data).toEqual([]);
  });

  it('stream() ends with the ApiError of a refusal it cannot retry (a cursor that is not one)', async () => {
    const reading = async () => {
      for await (const _event of sdk.events.stream({ after: 'not-a-cursor', waitSeconds: 0 })) break;
    };
    const error = await reading().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'validation-failed' });
  });
});
