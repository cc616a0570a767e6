/**
 * Malformed requests are refused with a 4xx answer in the right shape, never a 500: an unparseable
 * token request, NUL in a URL or a JSON string, over-long path segments and broken percent-encoding.
 * (Found by the reliability suite; pinned here in-process, fast, with exact bodies. Database outages
 * are covered by test/reliability/db-outage.test.ts and test/limits/limits.test.ts.)
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { problem } from '../support/problem.js';
import { useSharedHarness } from '../support/use-harness.js';

describeEachEngine('malformed requests', (engine) => {
  // One instance for the block: each test makes its own clients and compares the rows with those before it.
  const h = useSharedHarness(engine);

  const rows = async () => ({
    clients: await h.database.db.kysely.selectFrom('clients').select('name').execute(),
    schools: await h.database.db.kysely.selectFrom('schools').select('name').execute(),
  });

  it('the token endpoint answers an unparseable body, and our own refusals before it, in the RFC 6749 shape', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: { 'content-type': 'application/json' },
      payload: '[[[',
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the body is not valid JSON; send application/x-www-form-urlencoded',
    });
    // A refusal raised by the app's own hooks (a Problem, not a Fastify error) is no 500 either.
    const nul = await h.app.inject({ method: 'GET', url: '/api/auth/token?x=%00' });
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the URL may not contain NUL characters (%00)',
    });
  });

  it('a NUL in the URL is a 400 problem before any query runs (PostgreSQL answered a 500)', async () => {
    const shop = await createClientWithToken(h, 'Shop');
    for (const url of [
      '/api/v1/offers/a%00b',
      '/api/admin/v1/deliveries/a%00b/retry',
      '/api/lml/v1/lists?school=%00',
    ]) {
      const response = await h.app.inject({
        method: url.includes('retry') ? 'POST' : 'GET',
        url,
        headers: url.includes('admin') ? h.admin : shop.bearer,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        problem('malformed-request', 400, 'The request is malformed', 'the URL may not contain NUL characters (%00)'),
      );
    }
  });

  it('the discovery documents beside the token endpoint answer problems, not the OAuth shape', async () => {
    const response = await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json?x=%00' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toMatchObject({ code: 'malformed-request' });
  });

  it('a NUL in a JSON string is a 400 problem and nothing is stored', async () => {
    const before = await rows();
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/admin/v1/schools',
      headers: { ...h.admin, 'content-type': 'application/json' },
      payload: '{"name":"a\\u0000b","type":"VO"}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'malformed-body',
      detail: 'JSON strings may not contain NUL characters (\\u0000)',
    });
    expect(await rows()).toEqual(before);
  });

  it('router refusals are problem documents: a path segment over 255 characters (414) and broken percent-encoding (400)', async () => {
    const long = await h.app.inject({
      method: 'GET',
      url: `/api/admin/v1/clients/${'x'.repeat(256)}`,
      headers: h.admin,
    });
    expect(long.statusCode).toBe(414);
    expect(long.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(long.json()).toMatchObject({ code: 'uri-too-long', detail: 'a path segment is longer than 255 characters' });
    // Below the router's bound, a segment longer than its parameter's schema allows is that schema's 400.
    const overSchema = await h.app.inject({
      method: 'GET',
      url: `/api/admin/v1/clients/${'x'.repeat(101)}`,
      headers: h.admin,
    });
    expect(overSchema.statusCode).toBe(400);
    expect(overSchema.json()).toMatchObject({ code: 'validation-failed' });
    // An operator's OIDC sub may be 255 characters: it reaches the route (an unknown one is a 404).
    const sub = await h.app.inject({
      method: 'POST',
      url: `/api/admin/v1/operators/${'s'.repeat(255)}/enable`,
      headers: h.admin,
    });
    expect(sub.statusCode).toBe(404);
    const broken = await h.app.inject({ method: 'GET', url: '/api/admin/v1/clients/%ED%A0%80', headers: h.admin });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({
      code: 'malformed-request',
      detail: 'the URL is not valid percent-encoded UTF-8',
    });
  });
});
