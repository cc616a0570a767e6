import { beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { emptyTables, useSharedHarness } from '../support/use-harness.js';
import { createDnsHarness, SUBSCRIPTIONS, subscribe, type TestClient } from './support.js';

interface Sub {
  id: string;
  notificationUrl: string;
  event: string;
  status: string;
  disabledReason?: string;
  failingSince?: string;
  createdAt: string;
}

describeEachEngine('managing subscriptions', (engine) => {
  // One instance for the block: each test starts without clients, subscriptions or events, then makes its own clients.
  const h = useSharedHarness(engine, {
    create: createDnsHarness,
    client: { name: 'Shop' },
    reset: emptyTables('subscriptions', 'events', 'clients'),
  });
  let rival: TestClient;

  beforeEach(async () => {
    rival = await createClientWithToken(h, 'Rival');
  });

  /** Creates n subscriptions for `client`, one second apart, and returns them in creation order. */
  async function create(client: TestClient, n: number, tag = 'a'): Promise<Sub[]> {
    const created: Sub[] = [];
    for (let i = 0; i < n; i++) {
      const response = await subscribe(h, client, {
        notificationUrl: `https://hooks.shop.example/${tag}/${i}`,
        event: 'list-published',
      });
      expect(response.statusCode).toBe(201);
      created.push(response.json<Sub>());
      h.clock.advance(1000);
    }
    return created;
  }
  const get = (client: TestClient, url: string) => h.as(client).get(url);

  it('lists only the caller’s own, oldest first, with cursor paging', async () => {
    const mine = await create(h.client, 5);
    await create(rival, 2, 'rival');
    const first = await get(h.client, `${SUBSCRIPTIONS}?limit=2`);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ has_more: true, data: mine.slice(0, 2) });
    const second = await get(h.client, `${SUBSCRIPTIONS}?limit=2&starting_after=${mine[1]?.id}`);
    expect(second.json()).toEqual({ has_more: true, data: mine.slice(2, 4) });
    const last = await get(h.client, `${SUBSCRIPTIONS}?limit=2&starting_after=${mine[3]?.id}`);
    expect(last.json()).toEqual({ has_more: false, data: mine.slice(4) });
    expect((await get(h.client, SUBSCRIPTIONS)).json()).toEqual({ has_more: false, data: mine });
    expect((await get(rival, SUBSCRIPTIONS)).json<{ data: Sub[] }>().data.map((sub) => sub.notificationUrl)).toEqual([
      'https://hooks.shop.example/rival/0',
      'https://hooks.shop.example/rival/1',
    ]);
  });

  it('default page size is 20; subscriptions created in the same millisecond page without gaps or repeats', async () => {
    for (let i = 0; i < 23; i++) {
      expect(
        (
          await subscribe(h, h.client, {
            notificationUrl: `https://hooks.shop.example/same/${i}`,
            event: 'school.created',
          })
        ).statusCode,
      ).toBe(201);
    }
    const page = await get(h.client, SUBSCRIPTIONS);
    expect(page.json<{ data: Sub[] }>().data).toHaveLength(20);
    expect(page.json().has_more).toBe(true);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const response = await get(
        h.client,
        `${SUBSCRIPTIONS}?limit=4${after === undefined ? '' : `&starting_after=${after}`}`,
      );
      const body = response.json<{ has_more: boolean; data: Sub[] }>();
      seen.push(...body.data.map((sub) => sub.id));
      if (!body.has_more) break;
      after = body.data.at(-1)?.id;
    }
    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
  });

  it.each([['limit=0'], ['limit=101'], ['limit=abc']])('%s → 400 validation-failed', async (query) => {
    const response = await get(h.client, `${SUBSCRIPTIONS}?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('validation-failed');
  });

  it('an unknown or foreign starting_after → 400', async () => {
    const [theirs] = await create(rival, 1, 'rival');
    for (const id of ['sub_doesnotexist000000000', theirs?.id ?? '']) {
      const response = await get(h.client, `${SUBSCRIPTIONS}?starting_after=${id}`);
      expect(response.statusCode).toBe(400);
      const detail = `starting_after "${id}" is not a subscription id from this list`;
      expect(response.json()).toMatchObject({
        code: 'validation-failed',
        detail,
        errors: [{ location: 'querystring', path: '/starting_after', message: detail }],
      });
    }
  });

  it('GET one: own → 200; another client’s or unknown → 404 (never 403)', async () => {
    const [sub] = await create(h.client, 1);
    expect((await get(h.client, `${SUBSCRIPTIONS}/${sub?.id}`)).json()).toEqual(sub);
    for (const [client, id] of [
      [rival, sub?.id],
      [h.client, 'sub_doesnotexist000000000'],
    ] as const) {
      const response = await get(client, `${SUBSCRIPTIONS}/${id}`);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'not-found', detail: `subscription ${id} was not found` });
    }
  });

  it('DELETE: another client’s → 404 and kept; own → 204 then 404; pending deliveries go with it', async () => {
    const [sub] = await create(h.client, 1);
    const id = sub?.id ?? '';
    const kysely = h.database.db.kysely;
    const now = h.clock.now();
    await kysely
      .insertInto('events')
      .values({
        id: 'evt_1',
        name: 'list.published',
        resource: 'list',
        identifier: 'a'.repeat(32),
        payload: '{}',
        created_at: now,
      })
      .execute();
    await kysely
      .insertInto('deliveries')
      .values({
        id: 'dlv_1',
        event_id: 'evt_1',
        subscription_id: id,
        status: 'pending',
        attempt_count: 0,
        next_attempt_at: now,
        lease_owner: null,
        lease_until: null,
        last_status_code: null,
        last_error_class: null,
        created_at: now,
        updated_at: now,
        completed_at: null,
      })
      .execute();

    const foreign = await h.as(rival).delete(`${SUBSCRIPTIONS}/${id}`);
    expect(foreign.statusCode).toBe(404);
    expect(await kysely.selectFrom('subscriptions').select('id').execute()).toEqual([{ id }]);

    const deleted = await h.as(h.client).delete(`${SUBSCRIPTIONS}/${id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect(await kysely.selectFrom('subscriptions').select('id').execute()).toEqual([]);
    expect(await kysely.selectFrom('deliveries').select('id').execute()).toEqual([]);
    expect((await h.as(h.client).delete(`${SUBSCRIPTIONS}/${id}`)).statusCode).toBe(404);
    expect((await get(h.client, `${SUBSCRIPTIONS}/${id}`)).statusCode).toBe(404);
  });

  it('disable shows status and reason; the owner re-enables, clearing the failure history', async () => {
    const [sub] = await create(h.client, 1);
    const id = sub?.id ?? '';
    const failingSince = h.clock.now() - 5 * 86_400_000;
    await h.database.db.kysely
      .updateTable('subscriptions')
      .set({ failing_since: failingSince })
      .where('id', '=', id)
      .execute();
    expect((await get(h.client, `${SUBSCRIPTIONS}/${id}`)).json()).toEqual({
      ...sub,
      failingSince: new Date(failingSince).toISOString(),
    });

    expect(await h.services.subscriptions.disable(id, 'receiver answered 410 Gone')).toBe(true);
    // A later disable keeps the first reason.
    expect(await h.services.subscriptions.disable(id, 'failing for 5 days')).toBe(false);
    const disabled = await get(h.client, `${SUBSCRIPTIONS}/${id}`);
    expect(disabled.json()).toEqual({
      ...sub,
      status: 'disabled',
      disabledReason: 'receiver answered 410 Gone',
      failingSince: new Date(failingSince).toISOString(),
    });
    expect((await get(h.client, SUBSCRIPTIONS)).json<{ data: Sub[] }>().data[0]?.status).toBe('disabled');

    expect((await h.as(rival).post(`${SUBSCRIPTIONS}/${id}/enable`)).statusCode).toBe(404);
    h.clock.advance(60_000);
    const enabled = await h.as(h.client).post(`${SUBSCRIPTIONS}/${id}/enable`);
    expect(enabled.statusCode).toBe(200);
    expect(enabled.json()).toEqual(sub);
    const row = await h.database.db.kysely
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'active',
      disabled_reason: null,
      failing_since: null,
      updated_at: h.clock.now(),
    });
  });

  it('a duplicate registration of a disabled subscription returns it as it is (200, still disabled)', async () => {
    const [sub] = await create(h.client, 1);
    await h.services.subscriptions.disable(sub?.id ?? '', 'receiver answered 410 Gone');
    const again = await subscribe(h, h.client, { notificationUrl: sub?.notificationUrl, event: 'list.published' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({
      id: sub?.id,
      status: 'disabled',
      disabledReason: 'receiver answered 410 Gone',
    });
  });

  it('admin lists across clients with filters and re-enables', async () => {
    const mine = await create(h.client, 2);
    const theirs = await create(rival, 1, 'rival');
    await h.services.subscriptions.disable(mine[1]?.id ?? '', 'receiver answered 410 Gone');
    const admin = (url: string, method: 'GET' | 'POST' = 'GET') => h.asAdmin().request(method, url);

    const all = await admin('/api/admin/v1/subscriptions');
    expect(all.statusCode).toBe(200);
    const body = all.json<{ has_more: boolean; data: (Sub & { client: { id: string } })[] }>();
    expect(body.has_more).toBe(false);
    expect(body.data.map((sub) => sub.id)).toEqual([mine[0]?.id, mine[1]?.id, theirs[0]?.id]);
    expect(body.data[0]).toEqual({
      ...mine[0],
      canonicalEvent: 'list.published',
      client: { id: h.client.id, clientId: h.client.clientId, name: 'Shop' },
      updatedAt: mine[0]?.createdAt,
    });

    const byRef = (await admin(`/api/admin/v1/subscriptions?clientId=${h.client.id}`))
      .json<{ data: Sub[] }>()
      .data.map((sub) => sub.id);
    const byPublicId = (await admin(`/api/admin/v1/subscriptions?clientId=${h.client.clientId}`))
      .json<{ data: Sub[] }>()
      .data.map((sub) => sub.id);
    expect(byRef).toEqual([mine[0]?.id, mine[1]?.id]);
    expect(byPublicId).toEqual(byRef);
    const disabled = (await admin('/api/admin/v1/subscriptions?status=disabled')).json<{ data: Sub[] }>().data;
    expect(disabled.map((sub) => [sub.id, sub.disabledReason])).toEqual([[mine[1]?.id, 'receiver answered 410 Gone']]);
    const paged = (await admin(`/api/admin/v1/subscriptions?limit=1&starting_after=${mine[0]?.id}`)).json<{
      has_more: boolean;
      data: Sub[];
    }>();
    expect([paged.has_more, paged.data.map((sub) => sub.id)]).toEqual([true, [mine[1]?.id]]);
    expect((await admin('/api/admin/v1/subscriptions?status=gone')).statusCode).toBe(400);

    const enabled = await admin(`/api/admin/v1/subscriptions/${mine[1]?.id}/enable`, 'POST');
    expect(enabled.statusCode).toBe(200);
    expect(enabled.json()).toMatchObject({ id: mine[1]?.id, status: 'active' });
    expect(enabled.json().disabledReason).toBeUndefined();
    expect((await admin(`/api/admin/v1/subscriptions/${theirs[0]?.id}`)).json()).toMatchObject({
      id: theirs[0]?.id,
      client: { id: rival.id },
    });
    expect((await admin('/api/admin/v1/subscriptions/sub_doesnotexist000000000/enable', 'POST')).statusCode).toBe(404);
    expect((await h.as(h.client).get('/api/admin/v1/subscriptions')).statusCode).toBe(401);
  });

  it('POST /api/lml/v1/webhook-secret rotates the caller’s webhook secret with an overlap', async () => {
    const response = await h.as(h.client).post('/api/lml/v1/webhook-secret');
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json<{ webhookSecret: string; previousSecretValidUntil: string }>();
    expect(Object.keys(body).sort()).toEqual(['previousSecretValidUntil', 'webhookSecret']);
    expect(body.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(body.webhookSecret).not.toBe(h.client.webhookSecret);
    expect(body.previousSecretValidUntil).toBe(
      new Date(h.clock.now() + h.config.webhookSecretOverlapSeconds * 1000).toISOString(),
    );
    const rows = await h.database.db.kysely
      .selectFrom('clients')
      .select(['id', 'webhook_secret', 'previous_webhook_secret'])
      .orderBy('name')
      .execute();
    expect(rows).toEqual([
      { id: rival.id, webhook_secret: rival.webhookSecret, previous_webhook_secret: null },
      { id: h.client.id, webhook_secret: body.webhookSecret, previous_webhook_secret: h.client.webhookSecret },
    ]);
  });
});
