/** Idempotency-Key on POST: replay, conflict, per-owner keys, secrets never stored, expiry on the injected clock. */
import { expect, it } from 'vitest';
import { ABANDONED_AFTER_MS, IDEMPOTENCY_TTL_MS } from '../../src/idempotency/service.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, type TestClient } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

const MATH = '9789001891442';

describeEachEngine('Idempotency-Key', (engine) => {
  const h = useHarness(engine);

  const createOffer = (key: string | undefined, body: object = { ean: MATH, price: 12.5, condition: 'good' }) =>
    h.asAdmin().post('/api/admin/v1/offers', body, { headers: key === undefined ? {} : { 'idempotency-key': key } });
  const offerCount = async () => (await h.database.db.kysely.selectFrom('offers').select('id').execute()).length;
  const keyRows = () => h.database.db.kysely.selectFrom('idempotency_keys').selectAll().orderBy('key').execute();

  it('the same key and body replays the first answer (status, body, Location) and creates one offer', async () => {
    const first = await createOffer('order-42');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await createOffer('order-42');
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await offerCount()).toBe(1);
    const rows = await keyRows();
    expect(rows).toEqual([
      {
        owner: 'admin',
        key: 'order-42',
        request_hash: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as unknown as string,
        status_code: 201,
        response_headers: JSON.stringify({
          'content-type': 'application/json; charset=utf-8',
          location: first.headers.location,
        }),
        response_body: first.body,
        created_at: h.clock.now(),
        expires_at: h.clock.now() + IDEMPOTENCY_TTL_MS,
      },
    ]);
    // Without a key nothing is remembered and every POST creates.
    await createOffer(undefined);
    await createOffer(undefined);
    expect(await offerCount()).toBe(3);
    expect(await keyRows()).toHaveLength(1);
  });

  it('the same key with another body is a 422 problem and changes nothing', async () => {
    await createOffer('order-43');
    const other = await createOffer('order-43', { ean: MATH, price: 99, condition: 'good' });
    expect(other.statusCode).toBe(422);
    expect(other.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(other.json()).toMatchObject({
      type: '/problems/idempotency-key-reused',
      status: 422,
      code: 'idempotency-key-reused',
    });
    expect(await offerCount()).toBe(1);
    // Another path with the same key is another request too.
    const school = await h
      .asAdmin()
      .post('/api/admin/v1/schools', { name: 'X', type: 'VO' }, { headers: { 'idempotency-key': 'order-43' } });
    expect(school.statusCode).toBe(422);
  });

  it('keys expire after 24 hours (injected clock): then the key runs a new request', async () => {
    const first = await createOffer('order-44');
    h.clock.advance(IDEMPOTENCY_TTL_MS - 1);
    expect((await createOffer('order-44')).body).toBe(first.body);
    h.clock.advance(1);
    const fresh = await createOffer('order-44');
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.json().id).not.toBe(first.json().id);
    expect(await offerCount()).toBe(2);
    const [row] = await keyRows();
    expect(row?.created_at).toBe(h.clock.now());
  });

  it('a key whose first request has not answered is a 409 with Retry-After; an abandoned claim is taken over after a minute', async () => {
    // A first request that claimed the key and has not answered (yet, or ever: the process died).
    await createOffer('order-45');
    await h.database.db.kysely
      .updateTable('idempotency_keys')
      .set({ status_code: null, response_headers: null, response_body: null })
      .execute();
    await h.database.db.kysely.deleteFrom('offers').execute();
    const busy = await createOffer('order-45');
    expect(busy.statusCode).toBe(409);
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.json().code).toBe('idempotency-key-in-use');
    expect(await offerCount()).toBe(0);
    h.clock.advance(ABANDONED_AFTER_MS);
    expect((await createOffer('order-45')).statusCode).toBe(201);
    expect(await offerCount()).toBe(1);
  });

  it('keys are per owner: two clients and the operator may use the same key', async () => {
    const a = await createClientWithToken(h, 'Shop A');
    const b = await createClientWithToken(h, 'Shop B');
    const rotate = (client: TestClient) =>
      h.as(client).post('/api/lml/v1/webhook-secret', undefined, { headers: { 'idempotency-key': 'shared-key' } });
    const first = await rotate(a);
    const second = await rotate(b);
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(first.json().webhookSecret).not.toBe(second.json().webhookSecret);
    expect((await createOffer('shared-key')).statusCode).toBe(201);
    const owners = (await keyRows()).map((row) => row.owner).sort();
    expect(owners).toEqual(['admin', `client:${a.id}`, `client:${b.id}`].sort());
  });

  it('an answer carrying a secret is never stored: the replay is a 409 and the secret is not repeated', async () => {
    const a = await createClientWithToken(h, 'Shop A');
    const rotate = () =>
      h.as(a).post('/api/lml/v1/webhook-secret', undefined, { headers: { 'idempotency-key': 'rotate-1' } });
    const first = await rotate();
    expect(first.statusCode).toBe(200);
    const secret = first.json<{ webhookSecret: string }>().webhookSecret;
    const replay = await rotate();
    expect(replay.statusCode).toBe(409);
    expect(replay.json().code).toBe('conflict');
    expect(replay.body).not.toContain(secret);
    const [row] = await keyRows();
    expect(row).toMatchObject({ status_code: 200, response_body: null });
    expect(JSON.stringify(row)).not.toContain(secret);
    // The secret was rotated once only.
    const stored = await h.database.db.kysely
      .selectFrom('clients')
      .select('webhook_secret')
      .where('id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(stored.webhook_secret).toBe(secret);
  });

  it('a malformed key is a 400; the token endpoint ignores the header', async () => {
    const long = await createOffer('k'.repeat(256));
    expect(long.statusCode).toBe(400);
    expect(long.json().code).toBe('validation-failed');
    const spaced = await createOffer('has space');
    expect(spaced.statusCode).toBe(400);
    expect(await offerCount()).toBe(0);
    const a = await createClientWithToken(h);
    const token = () =>
      h.app.inject({
        method: 'POST',
        url: '/api/auth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'tok' },
        payload: `grant_type=client_credentials&client_id=${a.clientId}&client_secret=${a.clientSecret}`,
      });
    const one = await token();
    h.clock.advance(1000);
    const two = await token();
    expect(one.json().access_token).not.toBe(two.json().access_token);
    expect(await keyRows()).toEqual([]);
  });
});
