/**
 * Races: identical requests at the same moment. 20 concurrent identical subscription creates leave one
 * subscription; 20 concurrent publications of one list make one transition and one event; concurrent
 * secret resets and webhook-secret rotations leave a consistent client (the generation advanced once per
 * reset, exactly the last secret valid, the previous webhook secret one that a caller was given).
 */
import { expect, it } from 'vitest';
import { createDnsHarness, subscribe } from '../subscriptions/support.js';
import { describeEachEngine } from '../support/engines.js';
import { basic, createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

const N = 20;

describeEachEngine('races', (engine) => {
  const h = useHarness(engine, { create: createDnsHarness });

  it(`${N} concurrent identical subscription creates make one subscription`, async () => {
    const shop = await createClientWithToken(h, 'Shop');
    const payload = { notificationUrl: 'https://hooks.shop.example/race', event: 'list.updated' };
    const responses = await Promise.all(Array.from({ length: N }, () => subscribe(h, shop, payload)));
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(N - 1);
    const ids = new Set(responses.map((r) => r.json<{ id: string }>().id));
    expect(ids.size).toBe(1);
    const rows = await h.database.db.kysely.selectFrom('subscriptions').select(['id', 'notification_url']).execute();
    expect(rows).toEqual([{ id: [...ids][0], notification_url: payload.notificationUrl }]);
  });

  it(`${N} concurrent publications of one list make one transition and one event`, async () => {
    const school = (await h.asAdmin().post('/api/admin/v1/schools', { name: 'Race school', type: 'VO' })).json<{
      identifier: string;
    }>();
    const list = await h.asAdmin().post('/api/admin/v1/lists', { school: school.identifier, name: 'Race list' });
    expect(list.statusCode).toBe(201);
    const { identifier } = list.json<{ identifier: string }>();
    const status = (word: string) => h.asAdmin().post(`/api/admin/v1/lists/${identifier}/status`, { status: word });
    expect((await status('validated')).statusCode).toBe(200);
    const eventsBefore = await h.database.db.kysely.selectFrom('events').select(['id', 'name']).execute();

    const responses = await Promise.all(Array.from({ length: N }, () => status('published')));
    // Each answer is the published list (the winner, or the same status as a no-op) or a 409 conflict.
    for (const response of responses) {
      expect([200, 409]).toContain(response.statusCode);
      if (response.statusCode === 200) expect(response.json<{ status: string }>().status).toBe('published');
      else expect(response.json<{ code: string }>().code).toBe('conflict');
    }
    const events = await h.database.db.kysely.selectFrom('events').select(['id', 'name', 'payload']).execute();
    const newEvents = events.filter((event) => !eventsBefore.some((before) => before.id === event.id));
    // One transition: its list.status and list.published events, once each.
    expect(newEvents.map((event) => event.name).sort()).toEqual(['list.published', 'list.status']);
    const row = await h.database.db.kysely
      .selectFrom('lists')
      .select('status')
      .where('identifier', '=', identifier)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('published');
  });

  it(`${N / 2} concurrent secret resets and ${N / 2} webhook-secret rotations leave a consistent client`, async () => {
    const shop = await createClientWithToken(h, 'Shop');
    const before = await h.database.db.kysely
      .selectFrom('clients')
      .selectAll()
      .where('id', '=', shop.id)
      .executeTakeFirstOrThrow();
    const url = `/api/admin/v1/clients/${shop.id}`;
    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) => h.asAdmin().post(i % 2 === 0 ? `${url}/secret` : `${url}/webhook-secret`)),
    );
    for (const response of responses) expect(response.statusCode).toBe(200);
    const clientSecrets = responses
      .filter((_, i) => i % 2 === 0)
      .map((r) => r.json<{ clientSecret: string }>().clientSecret);
    const webhookSecrets = responses
      .filter((_, i) => i % 2 === 1)
      .map((r) => r.json<{ webhookSecret: string }>().webhookSecret);
    const after = await h.database.db.kysely
      .selectFrom('clients')
      .selectAll()
      .where('id', '=', shop.id)
      .executeTakeFirstOrThrow();

    // Every reset advanced the generation: tokens of any superseded secret are refused.
    expect(after.secret_version).toBe(before.secret_version + N / 2);
    const works: string[] = [];
    for (const secret of clientSecrets) {
      const token = await h
        .anonymous()
        .get('/api/auth/token', { headers: { authorization: basic(shop.clientId, secret) } });
      if (token.statusCode === 200) works.push(secret);
    }
    expect(works).toHaveLength(1);
    expect((await h.as(shop).get('/api/v1/offers?eans=9780194837125')).statusCode).toBe(401);

    // The webhook secrets chain: current and previous are both secrets a caller was given, and differ.
    expect(webhookSecrets).toContain(after.webhook_secret);
    expect(webhookSecrets).toContain(after.previous_webhook_secret);
    expect(after.previous_webhook_secret).not.toBe(after.webhook_secret);
    expect(after.previous_webhook_secret).not.toBe(before.webhook_secret);
  });
});
