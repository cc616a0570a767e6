import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { basic } from '../support/harness.js';
import { problem } from '../support/problem.js';
import { emptyTables, useSharedHarness } from '../support/use-harness.js';

describeEachEngine('admin: clients', (engine) => {
  // One instance for the block: each test starts without clients, the clock where it started.
  const h = useSharedHarness(engine, { reset: emptyTables('clients') });

  const createClient = (payload: unknown) => h.asAdmin().post('/api/admin/v1/clients', payload as object);

  it('creates a client, shows its secrets once and stores only a hash', async () => {
    const response = await createClient({ name: 'Boekenshop', scopes: ['offers:read'] });
    expect(response.statusCode).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^cli_[0-9A-Za-z]{21}$/),
      clientId: expect.stringMatching(/^smc_[0-9A-Za-z]{22}$/),
      clientSecret: expect.stringMatching(/^sms_[0-9A-Za-z]{43}$/),
      webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      name: 'Boekenshop',
      scopes: ['offers:read'],
      status: 'active',
      tokensValidAfter: '2026-09-01T08:00:00.000Z',
      createdAt: '2026-09-01T08:00:00.000Z',
      updatedAt: '2026-09-01T08:00:00.000Z',
    });
    const row = await h.database.db.kysely
      .selectFrom('clients')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_hash).not.toContain(body.clientSecret);
    expect(row.secret_hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(row.scopes).toBe('offers:read');
    expect(row.secret_version).toBe(1);

    const list = await h.asAdmin().get('/api/admin/v1/clients');
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(body.clientSecret);
    expect(list.body).not.toContain(body.webhookSecret);
    expect(list.json().data).toEqual([
      {
        id: body.id,
        clientId: body.clientId,
        name: 'Boekenshop',
        scopes: ['offers:read'],
        status: 'active',
        tokensValidAfter: body.tokensValidAfter,
        createdAt: body.createdAt,
        updatedAt: body.updatedAt,
      },
    ]);
    const one = await h.asAdmin().get(`/api/admin/v1/clients/${body.id}`);
    expect(one.json()).toEqual(list.json().data[0]);
  });

  it.each([
    [{}, 'validation-failed'],
    [{ name: '' }, 'validation-failed'],
    [{ name: 'x', scopes: ['admin'] }, 'validation-failed'],
    [{ name: 'x', extra: true }, 'validation-failed'],
  ])('rejects %j with a 400 problem', async (payload, code) => {
    const response = await createClient(payload);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toMatchObject({
      type: `/problems/${code}`,
      status: 400,
      code,
      instance: response.headers['x-request-id'],
    });
    expect(await h.database.db.kysely.selectFrom('clients').selectAll().execute()).toEqual([]);
  });

  it('reset bumps the secret version and refuses tokens issued before it', async () => {
    const client = (await createClient({ name: 'Shop' })).json();
    const token = (
      await h
        .anonymous()
        .get('/api/auth/token', { headers: { authorization: basic(client.clientId, client.clientSecret) } })
    ).json().access_token as string;
    h.clock.advance(1500);
    const reset = await h.asAdmin().post(`/api/admin/v1/clients/${client.id}/secret`);
    expect(reset.statusCode).toBe(200);
    const row = await h.database.db.kysely
      .selectFrom('clients')
      .selectAll()
      .where('id', '=', client.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_version).toBe(2);
    expect(row.tokens_valid_after).toBe(h.clock.now());
    const services = h.services;
    await expect(async () => services.tokens.authenticate(token)).rejects.toMatchObject({
      code: 'invalid-token',
      status: 401,
    });
  });

  it('rotates the webhook secret and keeps the previous one for the overlap', async () => {
    const client = (await createClient({ name: 'Shop' })).json();
    const rotated = await h.asAdmin().post(`/api/admin/v1/clients/${client.id}/webhook-secret`);
    expect(rotated.statusCode).toBe(200);
    const body = rotated.json();
    expect(body.webhookSecret).toMatch(/^whsec_/);
    expect(body.webhookSecret).not.toBe(client.webhookSecret);
    expect(body.previousSecretValidUntil).toBe('2026-09-02T08:00:00.000Z');
    const row = await h.database.db.kysely
      .selectFrom('clients')
      .selectAll()
      .where('id', '=', client.id)
      .executeTakeFirstOrThrow();
    expect(row.webhook_secret).toBe(body.webhookSecret);
    expect(row.previous_webhook_secret).toBe(client.webhookSecret);
    expect(row.previous_webhook_secret_expires_at).toBe(h.clock.now() + 86_400_000);
  });

  it('revoke is idempotent and shows the client as revoked', async () => {
    const client = (await createClient({ name: 'Shop' })).json();
    expect((await h.asAdmin().delete(`/api/admin/v1/clients/${client.id}`)).statusCode).toBe(204);
    expect((await h.asAdmin().delete(`/api/admin/v1/clients/${client.id}`)).statusCode).toBe(204);
    const view = (await h.asAdmin().get(`/api/admin/v1/clients/${client.id}`)).json();
    expect(view.status).toBe('revoked');
  });

  it.each([
    ['GET', '/api/admin/v1/clients/cli_unknown'],
    ['POST', '/api/admin/v1/clients/cli_unknown/secret'],
    ['POST', '/api/admin/v1/clients/cli_unknown/webhook-secret'],
    ['DELETE', '/api/admin/v1/clients/cli_unknown'],
  ] as const)('%s %s → 404 problem', async (method, url) => {
    const response = await h.asAdmin().request(method, url);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      ...problem('not-found', 404, 'Resource not found', 'client cli_unknown was not found'),
      instance: response.headers['x-request-id'],
    });
  });

  it.each([undefined, 'Bearer wrong-token-wrong-token', 'Basic abc'])(
    'admin routes refuse authorization %s',
    async (authorization) => {
      const response = await h
        .anonymous()
        .get('/api/admin/v1/clients', { headers: authorization === undefined ? {} : { authorization } });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="shelfmark-admin"');
      expect(response.json().code).toBe('unauthenticated');
    },
  );
});
