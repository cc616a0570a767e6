/**
 * The admin endpoints the console's screens call: registering a
 * subscription for a client (the client's own rules, filters included), and sending a delivery that
 * waits for its next scheduled retry now. Both engines; the answers and the resulting rows asserted.
 */
import { expect, it } from 'vitest';
import { addSubscription, emit } from '../delivery/support.js';
import { createDnsHarness } from '../subscriptions/support.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, type Harness } from '../support/harness.js';
import { problem } from '../support/problem.js';
import { useHarness } from '../support/use-harness.js';

const SUBSCRIPTIONS = '/api/admin/v1/subscriptions';
const URL_OK = 'https://hooks.shop.example/shelfmark';
const MATH = '9789001891442';

const rows = (h: Harness) =>
  h.database.db.kysely
    .selectFrom('subscriptions')
    .select(['id', 'client_ref', 'notification_url', 'event', 'event_as_given', 'status', 'filter', 'filter_list'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();

/** A console session (cookie and CSRF token), as the console's sign-in makes it. */
async function consoleSession(h: Harness): Promise<{ cookie: string; csrf: string }> {
  const signIn = await h.anonymous().post('/dashboard/api/session', { token: ADMIN_TOKEN });
  expect(signIn.statusCode).toBe(200);
  const cookie = String(signIn.headers['set-cookie']).split(';')[0] ?? '';
  return { cookie, csrf: signIn.json<{ csrfToken: string }>().csrfToken };
}

describeEachEngine('POST /api/admin/v1/subscriptions', (engine) => {
  const h = useHarness(engine, { create: createDnsHarness, client: { name: 'Boekhandel Noord' } });

  it('registers a subscription for a client named by id or public clientId; a repeat answers 200 with it', async () => {
    const created = await h
      .asAdmin()
      .post(SUBSCRIPTIONS, { clientId: h.client.clientId, notificationUrl: URL_OK, event: 'offer-published' });
    expect(created.statusCode).toBe(201);
    const body = created.json<{ id: string }>();
    expect(body).toEqual({
      id: expect.stringMatching(/^sub_/),
      notificationUrl: URL_OK,
      event: 'offer-published',
      status: 'active',
      createdAt: '2026-09-01T08:00:00.000Z',
      canonicalEvent: 'offer.published',
      client: { id: h.client.id, clientId: h.client.clientId, name: 'Boekhandel Noord' },
      updatedAt: '2026-09-01T08:00:00.000Z',
    });
    expect(created.headers.location).toBe(`${SUBSCRIPTIONS}/${body.id}`);
    const again = await h
      .asAdmin()
      .post(SUBSCRIPTIONS, { clientId: h.client.id, notificationUrl: URL_OK, event: 'offer.published' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(body);
    expect(await rows(h)).toEqual([
      {
        id: body.id,
        client_ref: h.client.id,
        notification_url: URL_OK,
        event: 'offer.published',
        event_as_given: 'offer-published',
        status: 'active',
        filter: null,
        filter_list: null,
      },
    ]);
    // The client sees it as its own.
    const own = await h.as(h.client).get(`/api/lml/v1/subscriptions/${body.id}`);
    expect(own.statusCode).toBe(200);
    // Recorded in the audit log, as the operator's action on that subscription.
    const audit = await h.database.db.kysely
      .selectFrom('audit_records')
      .select(['action', 'actor_type', 'target_type'])
      .where('target_id', '=', body.id)
      .execute();
    expect(audit).toEqual([{ action: 'subscription.created', actor_type: 'admin-token', target_type: 'subscription' }]);
  });

  it("takes the client's filters: EANs, or a list's items", async () => {
    const school = await h.asAdmin().post('/api/admin/v1/schools', { name: 'Erasmus Lyceum', type: 'VO' });
    const list = await h.asAdmin().post('/api/admin/v1/lists', {
      school: school.json<{ identifier: string }>().identifier,
      name: 'vwo 4',
      items: [{ ean: MATH, title: 'Getal & Ruimte' }],
    });
    const listId = list.json<{ identifier: string }>().identifier;
    const byEans = await h.asAdmin().post(SUBSCRIPTIONS, {
      clientId: h.client.clientId,
      notificationUrl: `${URL_OK}/eans`,
      event: 'offer.status',
      filter: { eans: [` ${MATH} `] },
    });
    expect(byEans.statusCode).toBe(201);
    expect(byEans.json<{ filter: unknown }>().filter).toEqual({ eans: [MATH] });
    h.clock.advance(1000);
    const byList = await h.asAdmin().post(SUBSCRIPTIONS, {
      clientId: h.client.clientId,
      notificationUrl: `${URL_OK}/list`,
      event: 'offer.updated',
      filter: { list: listId },
    });
    expect(byList.statusCode).toBe(201);
    expect(byList.json<{ filter: unknown }>().filter).toEqual({ list: listId });
    expect((await rows(h)).map((row) => [row.filter, row.filter_list])).toEqual([
      [JSON.stringify({ eans: [MATH] }), null],
      [JSON.stringify({ list: listId }), listId],
    ]);
  });

  it('refuses what the client would be refused, naming the field; nothing is stored', async () => {
    const as = (body: object) => h.asAdmin().post(SUBSCRIPTIONS, { clientId: h.client.clientId, ...body });
    const ftp = await as({ notificationUrl: 'ftp://files.example/hook', event: 'list.published' });
    expect(ftp.statusCode).toBe(400);
    expect(ftp.json()).toMatchObject({
      code: 'validation-failed',
      detail: 'notificationUrl must use http or https, not ftp',
    });
    const filterOnList = await as({ notificationUrl: URL_OK, event: 'list.published', filter: { eans: [MATH] } });
    expect(filterOnList.statusCode).toBe(400);
    expect(filterOnList.json<{ errors: { path: string }[] }>().errors[0]?.path).toBe('/filter');
    const badEan = await as({ notificationUrl: URL_OK, event: 'offer.published', filter: { eans: ['9789001891443'] } });
    expect(badEan.statusCode).toBe(400);
    expect(badEan.json()).toMatchObject({ code: 'invalid-ean' });
    const privateHost = await as({ notificationUrl: 'http://localhost/hook', event: 'list.published' });
    expect(privateHost.statusCode).toBe(422);
    expect(privateHost.json()).toMatchObject({ code: 'blocked-address' });
    expect(await rows(h)).toEqual([]);
  });

  it('404 for an unknown client, 409 for a revoked one', async () => {
    const unknown = await h
      .asAdmin()
      .post(SUBSCRIPTIONS, { clientId: 'smc_nobody', notificationUrl: URL_OK, event: 'list.published' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual(problem('not-found', 404, 'Resource not found', 'client smc_nobody was not found'));
    expect((await h.asAdmin().delete(`/api/admin/v1/clients/${h.client.id}`)).statusCode).toBe(204);
    const revoked = await h
      .asAdmin()
      .post(SUBSCRIPTIONS, { clientId: h.client.id, notificationUrl: URL_OK, event: 'list.published' });
    expect(revoked.statusCode).toBe(409);
    expect(revoked.json()).toMatchObject({
      code: 'conflict',
      detail: 'client Boekhandel Noord is revoked; it cannot receive webhooks',
    });
    expect(await rows(h)).toEqual([]);
  });

  it('needs the admin token, or the console session with its CSRF token', async () => {
    const body = { clientId: h.client.id, notificationUrl: URL_OK, event: 'list.published' };
    expect((await h.anonymous().post(SUBSCRIPTIONS, body)).statusCode).toBe(401);
    expect((await h.as(h.client).post(SUBSCRIPTIONS, body)).statusCode).toBe(401);
    const { cookie, csrf } = await consoleSession(h);
    const noCsrf = await h.anonymous().post(SUBSCRIPTIONS, body, { headers: { cookie } });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json()).toMatchObject({ code: 'csrf-rejected' });
    expect(await rows(h)).toEqual([]);
    const withCsrf = await h.anonymous().post(SUBSCRIPTIONS, body, { headers: { cookie, 'x-csrf-token': csrf } });
    expect(withCsrf.statusCode).toBe(201);
    expect((await rows(h)).map((row) => row.client_ref)).toEqual([h.client.id]);
  });
});

describeEachEngine('POST /api/admin/v1/deliveries/{id}/send-now', (engine) => {
  const h = useHarness(engine, { client: { name: 'Boekhandel Noord' } });

  const delivery = (id: string) =>
    h.database.db.kysely
      .selectFrom('deliveries')
      .select(['status', 'attempt_count', 'next_attempt_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('moves the waiting attempt to now (same delivery); refuses one that is due, finished or unknown', async () => {
    // A loopback port nothing listens on: the attempt fails at once, and the retry schedule takes over.
    const subscriptionId = await addSubscription(h.database.db, h.client.id, 'http://127.0.0.1:9/hook', h.clock.now());
    await emit(h.database.db, h.clock.now());
    const [row] = (await h.asAdmin().get(`/api/admin/v1/deliveries?subscriptionId=${subscriptionId}`)).json<{
      data: { id: string }[];
    }>().data;
    if (row === undefined) throw new Error('no delivery');
    const sendNow = () => h.asAdmin().post(`/api/admin/v1/deliveries/${row.id}/send-now`);
    // Not attempted yet: due now already.
    const due = await sendNow();
    expect(due.statusCode).toBe(409);
    expect(due.json()).toMatchObject({ code: 'conflict', detail: 'the delivery is due or being attempted already' });
    await h.services.createDeliveryWorker({ onError: () => undefined }).runOnce();
    const waiting = await delivery(row.id);
    expect(waiting).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(Number(waiting.next_attempt_at)).toBeGreaterThan(h.clock.now());

    // Sent before the answer (the port refuses it), and the schedule is not moved: the waiting attempt stays.
    const sent = await sendNow();
    expect(sent.statusCode).toBe(202);
    expect(sent.json()).toMatchObject({
      id: row.id,
      status: 'pending',
      nextAttemptAt: new Date(Number(waiting.next_attempt_at)).toISOString(),
    });
    const attempts = await h.database.db.kysely
      .selectFrom('delivery_attempts')
      .select('delivery_id')
      .where('delivery_id', '=', row.id)
      .execute();
    expect(attempts).toHaveLength(2);
    expect(await delivery(row.id)).toMatchObject({ status: 'pending', next_attempt_at: waiting.next_attempt_at });
    const audit = await h.database.db.kysely
      .selectFrom('audit_records')
      .select(['action', 'actor_type'])
      .where('target_id', '=', row.id)
      .execute();
    expect(audit).toEqual([{ action: 'delivery.sent-now', actor_type: 'admin-token' }]);

    await h.database.db.kysely
      .updateTable('deliveries')
      .set({ status: 'failed', completed_at: h.clock.now() })
      .where('id', '=', row.id)
      .execute();
    const finished = await sendNow();
    expect(finished.statusCode).toBe(409);
    expect(finished.json()).toMatchObject({ detail: 'the delivery is finished; retry it instead' });
    const unknown = await h.asAdmin().post('/api/admin/v1/deliveries/dlv_nothing/send-now');
    expect(unknown.statusCode).toBe(404);
    expect((await h.anonymous().post(`/api/admin/v1/deliveries/${row.id}/send-now`)).statusCode).toBe(401);
  });
});
