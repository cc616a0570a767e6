/**
 * The partner portal's API and sign-in over the real app: one-time links (hashed, single use, 15
 * minutes), cookie sessions (flags, idle timeout, sign-out), CSRF on every state change, and a
 * partner confined to its own client (another client's ids answer 404).
 */
import { createHash } from 'node:crypto';
import { beforeEach, expect, it } from 'vitest';
import { addSubscription, emit } from '../delivery/support.js';
import { createDnsHarness, type TestClient } from '../subscriptions/support.js';
import { describeEachEngine } from '../support/engines.js';
import { basic, createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { subscriptionWithDelivery } from './support.js';

type Method = 'GET' | 'POST' | 'DELETE';
interface Call {
  method: Method;
  url: string;
  payload?: Record<string, unknown>;
}

describeEachEngine('partner portal', (engine) => {
  const h = useHarness(engine, {
    create: (e) => createDnsHarness(e, { publicBaseUrl: 'https://shelfmark.example' }),
    client: { name: 'Shop <b>' },
  });
  let other: TestClient;

  beforeEach(async () => {
    other = await createClientWithToken(h, 'Other shop');
  });

  async function link(clientRef: string): Promise<{ token: string; url: string; expiresAt: string }> {
    const response = await h.asAdmin().post(`/api/admin/v1/clients/${clientRef}/portal-link`);
    expect(response.statusCode).toBe(201);
    const body = response.json<{ url: string; path: string; expiresAt: string; clientId: string }>();
    return { token: body.path.split('#')[1] ?? '', url: body.url, expiresAt: body.expiresAt };
  }

  /** Signs in with a fresh link; returns the cookie header and CSRF token. */
  async function signIn(clientRef: string): Promise<{ cookie: string; csrf: string }> {
    const { token } = await link(clientRef);
    const response = await h.anonymous().post('/portal/api/sign-in', { token });
    expect(response.statusCode).toBe(200);
    const setCookie = String(response.headers['set-cookie']);
    return { cookie: setCookie.split(';')[0] ?? '', csrf: response.json<{ csrfToken: string }>().csrfToken };
  }

  const as = (session: { cookie: string; csrf: string }, call: Call, withCsrf = true) =>
    h.anonymous().request(call.method, call.url, call.payload, {
      headers: { cookie: session.cookie, ...(withCsrf ? { 'x-csrf-token': session.csrf } : {}) },
    });

  it('creates a 15-minute link stored only as a hash, and signs in once with HttpOnly SameSite=Strict cookie', async () => {
    const { token, url, expiresAt } = await link(h.client.id);
    expect(url).toBe(`https://shelfmark.example/portal/sign-in#${token}`);
    expect(expiresAt).toBe('2026-09-01T08:15:00.000Z');
    const rows = await h.database.db.kysely.selectFrom('portal_links').selectAll().execute();
    expect(rows).toEqual([
      {
        token_hash: createHash('sha256').update(token).digest('base64url'),
        client_ref: h.client.id,
        created_at: h.clock.now(),
        expires_at: h.clock.now() + 900_000,
        used_at: null,
      },
    ]);
    expect(JSON.stringify(rows)).not.toContain(token);

    const first = await h.anonymous().post('/portal/api/sign-in', { token });
    expect(first.statusCode).toBe(200);
    expect(String(first.headers['set-cookie'])).toMatch(
      /^shelfmark_portal=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    expect(first.headers['cache-control']).toBe('no-store');
    const sessions = await h.database.db.kysely.selectFrom('web_sessions').select(['kind', 'client_ref']).execute();
    expect(sessions).toEqual([{ kind: 'portal', client_ref: h.client.id }]);

    const again = await h.anonymous().post('/portal/api/sign-in', { token });
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({
      code: 'unauthenticated',
      detail: 'this sign-in link is invalid, already used or expired; ask the operator for a new one',
    });
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('refuses an expired link and an unknown one', async () => {
    const { token } = await link(h.client.id);
    h.clock.advance(15 * 60 * 1000);
    expect((await h.anonymous().post('/portal/api/sign-in', { token })).statusCode).toBe(401);
    expect((await h.anonymous().post('/portal/api/sign-in', { token: 'x'.repeat(43) })).statusCode).toBe(401);
    expect((await h.asAdmin().post('/api/admin/v1/clients/cli_nope/portal-link')).statusCode).toBe(404);
    expect((await h.anonymous().post(`/api/admin/v1/clients/${h.client.id}/portal-link`)).statusCode).toBe(401);
  });

  it('shows the session, ends it after the idle timeout and on sign-out', async () => {
    const session = await signIn(h.client.id);
    const me = await as(session, { method: 'GET', url: '/portal/api/session' });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({
      signedIn: true,
      client: expect.objectContaining({
        id: h.client.id,
        clientId: h.client.clientId,
        name: 'Shop <b>',
        status: 'active',
      }),
      csrfToken: session.csrf,
      idleTimeoutSeconds: 1800,
    });
    expect((await h.anonymous().get('/portal/api/session')).json()).toEqual({ signedIn: false });
    const subscriptions = { method: 'GET', url: '/portal/api/subscriptions' } as const;
    expect((await h.anonymous().request(subscriptions.method, subscriptions.url)).statusCode).toBe(401);

    h.clock.advance(1799 * 1000);
    expect((await as(session, subscriptions)).statusCode).toBe(200);
    h.clock.advance(1801 * 1000);
    expect((await as(session, subscriptions)).statusCode).toBe(401);
    expect((await as(session, { method: 'GET', url: '/portal/api/session' })).json()).toEqual({ signedIn: false });

    const second = await signIn(h.client.id);
    expect((await as(second, { method: 'POST', url: '/portal/api/sign-out' })).statusCode).toBe(204);
    expect((await as(second, subscriptions)).statusCode).toBe(401);
  });

  it('refuses every state change without the CSRF token, and a revoked client loses its session', async () => {
    const session = await signIn(h.client.id);
    for (const [method, url] of [
      ['POST', '/portal/api/secret'],
      ['POST', '/portal/api/webhook-secret'],
      ['POST', '/portal/api/subscriptions'],
      ['POST', '/portal/api/sign-out'],
    ] as const) {
      const response = await as(session, { method, url, payload: {} }, false);
      expect(response.statusCode, url).toBe(403);
      expect(response.json()).toMatchObject({ code: 'csrf-rejected' });
      const wrong = await h
        .anonymous()
        .request(method, url, {}, { headers: { cookie: session.cookie, 'x-csrf-token': 'wrong' } });
      expect(wrong.statusCode, url).toBe(403);
    }
    const client = await h.database.db.kysely
      .selectFrom('clients')
      .select('secret_version')
      .where('id', '=', h.client.id)
      .executeTakeFirstOrThrow();
    expect(client.secret_version).toBe(1);

    await h.asAdmin().delete(`/api/admin/v1/clients/${h.client.id}`);
    expect((await as(session, { method: 'GET', url: '/portal/api/subscriptions' })).statusCode).toBe(401);
  });

  it('resets the secret through the client service: the old secret and its tokens are refused at once', async () => {
    const session = await signIn(h.client.id);
    const reset = await as(session, { method: 'POST', url: '/portal/api/secret' });
    expect(reset.statusCode).toBe(200);
    const { clientSecret } = reset.json<{ clientSecret: string }>();
    expect(clientSecret).toMatch(/^sms_/);
    expect((await h.as(h.client).get('/api/lml/v1/subscriptions')).statusCode).toBe(401);
    expect(
      (
        await h
          .anonymous()
          .get('/api/auth/token', { headers: { authorization: basic(h.client.clientId, h.client.clientSecret) } })
      ).statusCode,
    ).toBe(401);
    expect(
      (
        await h
          .anonymous()
          .get('/api/auth/token', { headers: { authorization: basic(h.client.clientId, clientSecret) } })
      ).statusCode,
    ).toBe(200);

    const rotated = await as(session, { method: 'POST', url: '/portal/api/webhook-secret' });
    expect(rotated.json()).toEqual({
      webhookSecret: expect.stringMatching(/^whsec_/),
      previousSecretValidUntil: '2026-09-02T08:00:00.000Z',
    });
  });

  it('creates subscriptions with the API rules (SSRF included), lists, pings and deletes them', async () => {
    const session = await signIn(h.client.id);
    const blocked = await as(session, {
      method: 'POST',
      url: '/portal/api/subscriptions',
      payload: { notificationUrl: 'http://localhost:9/hook', event: 'list.published' },
    });
    expect(blocked.statusCode).toBe(422);
    expect(blocked.json()).toMatchObject({ code: 'blocked-address' });
    const badEvent = await as(session, {
      method: 'POST',
      url: '/portal/api/subscriptions',
      payload: { notificationUrl: 'https://hooks.shop.example/x', event: 'nope' },
    });
    expect(badEvent.statusCode).toBe(400);
    expect(await h.database.db.kysely.selectFrom('subscriptions').selectAll().execute()).toEqual([]);

    const created = await as(session, {
      method: 'POST',
      url: '/portal/api/subscriptions',
      payload: { notificationUrl: 'https://hooks.shop.example/x', event: 'list-published' },
    });
    expect(created.statusCode).toBe(201);
    const subscription = created.json<{ id: string }>();
    const listed = await as(session, { method: 'GET', url: '/portal/api/subscriptions' });
    expect(listed.json()).toEqual({
      has_more: false,
      data: [
        {
          id: subscription.id,
          notificationUrl: 'https://hooks.shop.example/x',
          event: 'list-published',
          status: 'active',
          createdAt: '2026-09-01T08:00:00.000Z',
          failedAttemptsInARow: 0,
        },
      ],
    });
    // The banner's count: the failed attempts since the last success, as the worker keeps it.
    await h.database.db.kysely
      .updateTable('subscriptions')
      .set({ failing_since: h.clock.now(), consecutive_failures: 3 })
      .where('id', '=', subscription.id)
      .execute();
    expect((await as(session, { method: 'GET', url: '/portal/api/subscriptions' })).json()).toMatchObject({
      data: [{ failingSince: '2026-09-01T08:00:00.000Z', failedAttemptsInARow: 3 }],
    });

    // A ping is sent at once: pointed at loopback (port 9), which the SSRF guard refuses, it never leaves the host.
    await h.database.db.kysely
      .updateTable('subscriptions')
      .set({ notification_url: 'http://127.0.0.1:9/x' })
      .where('id', '=', subscription.id)
      .execute();
    const ping = await as(session, { method: 'POST', url: `/portal/api/subscriptions/${subscription.id}/ping` });
    expect(ping.json()).toMatchObject({ ok: false, statusCode: null, errorClass: 'blocked' });
    const deliveries = await as(session, { method: 'GET', url: '/portal/api/deliveries?event=ping' });
    expect(deliveries.json<{ data: { id: string; event: string; status: string }[] }>().data).toEqual([
      expect.objectContaining({
        id: ping.json<{ deliveryId: string }>().deliveryId,
        event: 'ping',
        status: 'failed',
        subscriptionId: subscription.id,
      }),
    ]);

    expect(
      (await as(session, { method: 'DELETE', url: `/portal/api/subscriptions/${subscription.id}` })).statusCode,
    ).toBe(204);
    expect(await h.database.db.kysely.selectFrom('subscriptions').selectAll().execute()).toEqual([]);
  });

  it("answers 404 for every route given another client's subscription or delivery", async () => {
    const session = await signIn(h.client.id);
    const { subscription: theirs, delivery } = await subscriptionWithDelivery(
      h,
      other.id,
      'https://hooks.shop.example/theirs',
    );
    await h.database.db.kysely
      .updateTable('deliveries')
      .set({ status: 'failed', completed_at: h.clock.now() })
      .where('id', '=', delivery)
      .execute();

    const cases = [
      ['DELETE', `/portal/api/subscriptions/${theirs}`, undefined],
      ['POST', `/portal/api/subscriptions/${theirs}/ping`, undefined],
      ['POST', `/portal/api/subscriptions/${theirs}/enable`, undefined],
      ['POST', `/portal/api/subscriptions/${theirs}/recover`, { since: '2026-01-01T00:00:00Z' }],
      ['GET', `/portal/api/deliveries/${delivery}`, undefined],
      ['POST', `/portal/api/deliveries/${delivery}/retry`, undefined],
      ['GET', `/portal/api/deliveries?subscriptionId=${theirs}`, undefined],
    ] as const;
    for (const [method, url, payload] of cases) {
      const response = await as(session, { method, url, ...(payload === undefined ? {} : { payload }) });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json(), url).toMatchObject({ code: 'not-found' });
    }
    const list = await as(session, { method: 'GET', url: '/portal/api/deliveries' });
    expect(list.json()).toEqual({ has_more: false, data: [] });
    const rows = await h.database.db.kysely
      .selectFrom('deliveries')
      .select(['status'])
      .where('id', '=', delivery)
      .executeTakeFirstOrThrow();
    expect(rows.status).toBe('failed');
    expect(
      await h.database.db.kysely.selectFrom('subscriptions').select('id').where('id', '=', theirs).execute(),
    ).toHaveLength(1);
  });

  /** The shop's subscription to list.updated on port 9 of loopback: an attempt fails (blocked or refused) without leaving the machine. */
  const mySubscription = () =>
    addSubscription(h.database.db, h.client.id, 'http://127.0.0.1:9/mine', h.clock.now(), 'list.updated');

  it("filters the delivery log by one of the client's subscriptions, on the server (paged there)", async () => {
    const session = await signIn(h.client.id);
    const mine = await mySubscription();
    const second = await addSubscription(h.database.db, h.client.id, 'http://127.0.0.1:9/second', h.clock.now());
    for (let i = 0; i < 3; i++) {
      await emit(h.database.db, h.clock.now());
      h.clock.advance(60_000);
    }
    type Listed = { has_more: boolean; data: { subscriptionId: string }[] };
    const page = await as(session, { method: 'GET', url: `/portal/api/deliveries?subscriptionId=${second}&limit=2` });
    expect(page.statusCode).toBe(200);
    expect(page.json<Listed>().data.map((d) => d.subscriptionId)).toEqual([second, second]);
    expect(page.json<Listed>().has_more).toBe(true);
    const all = await as(session, { method: 'GET', url: `/portal/api/deliveries?subscriptionId=${mine}` });
    expect(all.json<Listed>().data.map((d) => d.subscriptionId)).toEqual([mine, mine, mine]);
  });

  it('filters the delivery log by time range and shows attempts with masked signatures, retries one', async () => {
    const session = await signIn(h.client.id);
    const mine = await mySubscription();
    await emit(h.database.db, h.clock.now());
    h.clock.advance(20 * 60_000);
    await emit(h.database.db, h.clock.now());
    const all = await as(session, { method: 'GET', url: '/portal/api/deliveries' });
    expect(all.json<{ data: unknown[] }>().data).toHaveLength(2);
    const recent = await as(session, { method: 'GET', url: '/portal/api/deliveries?since=2026-09-01T08:10:00Z' });
    expect(recent.json<{ data: { createdAt: string }[] }>().data.map((d) => d.createdAt)).toEqual([
      '2026-09-01T08:20:00.000Z',
    ]);
    const older = await as(session, { method: 'GET', url: '/portal/api/deliveries?until=2026-09-01T08:10:00Z' });
    expect(older.json<{ data: { createdAt: string }[] }>().data.map((d) => d.createdAt)).toEqual([
      '2026-09-01T08:00:00.000Z',
    ]);
    expect((await as(session, { method: 'GET', url: '/portal/api/deliveries?since=yesterday' })).statusCode).toBe(400);

    const worker = h.services.createDeliveryWorker({ onError: () => undefined });
    await worker.runOnce();
    const first = all.json<{ data: { id: string }[] }>().data[0];
    if (first === undefined) throw new Error('no delivery');
    const detail = await as(session, { method: 'GET', url: `/portal/api/deliveries/${first.id}` });
    expect(detail.statusCode).toBe(200);
    const body = detail.json<{
      subscriptionId: string;
      attempts: { requestHeaders: Record<string, string>; errorClass: string | null }[];
    }>();
    expect(body.subscriptionId).toBe(mine);
    expect(body.attempts.length).toBeGreaterThan(0);
    const headers = body.attempts[0]?.requestHeaders ?? {};
    expect(headers['webhook-id']).toBe(first.id);
    expect(headers['webhook-signature']).toBe('•••••••• (masked)');
    expect(headers['x-hook-signature']).toBe('•••••••• (masked)');
    expect(JSON.stringify(body)).not.toContain(h.client.webhookSecret);

    const pending = await as(session, { method: 'POST', url: `/portal/api/deliveries/${first.id}/retry` });
    expect(pending.statusCode).toBe(409);
    await h.database.db.kysely
      .updateTable('deliveries')
      .set({ status: 'failed', completed_at: h.clock.now() })
      .where('id', '=', first.id)
      .execute();
    const retried = await as(session, { method: 'POST', url: `/portal/api/deliveries/${first.id}/retry` });
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toMatchObject({ id: first.id, status: 'pending' });
    const recovered = await as(session, {
      method: 'POST',
      url: `/portal/api/subscriptions/${mine}/recover`,
      payload: { since: '2026-09-01T00:00:00Z' },
    });
    expect(recovered.json()).toEqual({ requeued: 0 });
  });
  it('send-now sends a waiting delivery at once (same id) and leaves its next scheduled attempt where it was; refuses other states', async () => {
    const session = await signIn(h.client.id);
    const mine = await mySubscription();
    await emit(h.database.db, h.clock.now());
    const [delivery] = (await as(session, { method: 'GET', url: '/portal/api/deliveries' })).json<{
      data: { id: string }[];
    }>().data;
    if (delivery === undefined) throw new Error('no delivery');
    const sendNow = { method: 'POST', url: `/portal/api/deliveries/${delivery.id}/send-now` } as const;
    // Not attempted yet: it is due now already.
    expect((await as(session, sendNow)).statusCode).toBe(409);
    await h.services.createDeliveryWorker({ onError: () => undefined }).runOnce();
    const waiting = await h.database.db.kysely
      .selectFrom('deliveries')
      .select(['status', 'attempt_count', 'next_attempt_at'])
      .where('id', '=', delivery.id)
      .executeTakeFirstOrThrow();
    expect(waiting).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(Number(waiting.next_attempt_at)).toBeGreaterThan(h.clock.now());
    // The retry route keeps refusing a pending delivery; send-now is the way for a waiting one.
    expect((await as(session, { method: 'POST', url: `/portal/api/deliveries/${delivery.id}/retry` })).statusCode).toBe(
      409,
    );
    // Sent before the answer (the SSRF guard refuses loopback, so it fails without leaving the machine).
    const sent = await as(session, sendNow);
    expect(sent.statusCode).toBe(200);
    expect(sent.json()).toMatchObject({
      id: delivery.id,
      status: 'pending',
      attemptCount: 2,
      lastErrorClass: 'blocked',
      nextAttemptAt: new Date(Number(waiting.next_attempt_at)).toISOString(),
    });
    // Once its scheduled attempt is due, the worker's is next: send-now refuses.
    h.clock.set(Number(waiting.next_attempt_at));
    expect((await as(session, sendNow)).statusCode).toBe(409);
    // Another client's delivery is "not found", as on every portal route.
    const theirs = await signIn(other.id);
    expect((await as(theirs, sendNow)).statusCode).toBe(404);
    expect(mine).toBeDefined();
  });
});
