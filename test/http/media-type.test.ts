/** Every JSON route answers 415 with a clear sentence for another content type (curl -d sends a form). */
import { expect, it } from 'vitest';
import { createDnsHarness, SUBSCRIPTIONS } from '../subscriptions/support.js';
import { describeEachEngine } from '../support/engines.js';
import { emptyTables, useSharedHarness } from '../support/use-harness.js';

const BODY = JSON.stringify({ notificationUrl: 'https://hooks.shop.example/shelfmark', event: 'list-published' });

describeEachEngine('request media types', (engine) => {
  // One instance for the block: each test has a client of its own and starts without subscriptions.
  const h = useSharedHarness(engine, {
    create: createDnsHarness,
    client: { name: 'Shop' },
    reset: emptyTables('subscriptions'),
  });

  const post = (url: string, contentType: string, headers: Record<string, string>) =>
    h.app.inject({ method: 'POST', url, payload: BODY, headers: { ...headers, 'content-type': contentType } });

  it('curl -d (a form content type) on POST /subscriptions → 415 saying to send JSON; nothing stored', async () => {
    const response = await post(SUBSCRIPTIONS, 'application/x-www-form-urlencoded', h.client.bearer);
    expect(response.statusCode).toBe(415);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toEqual({
      type: '/problems/unsupported-media-type',
      title: 'Unsupported content type',
      status: 415,
      detail:
        'this endpoint reads Content-Type: application/json, not application/x-www-form-urlencoded; send Content-Type: application/json',
      instance: expect.any(String),
      code: 'unsupported-media-type',
    });
    expect(await h.database.db.kysely.selectFrom('subscriptions').selectAll().execute()).toEqual([]);
  });

  it('the admin API too: text/plain → 415', async () => {
    const response = await post('/api/admin/v1/clients', 'text/plain', h.admin);
    expect(response.statusCode).toBe(415);
    expect(response.json<{ code: string }>().code).toBe('unsupported-media-type');
  });

  it('application/json with parameters is JSON: 201', async () => {
    const response = await post(SUBSCRIPTIONS, 'application/json; charset=utf-8', h.client.bearer);
    expect(response.statusCode).toBe(201);
  });

  it('the token endpoint still takes forms (its own content types)', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      payload: `grant_type=client_credentials&client_id=${h.client.clientId}&client_secret=${h.client.clientSecret}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.statusCode).toBe(200);
  });

  it('the admin API refuses an unauthenticated caller before it looks at the body: 401, not 415', async () => {
    const response = await post('/api/admin/v1/clients', 'text/plain', {});
    expect(response.statusCode).toBe(401);
  });
});
