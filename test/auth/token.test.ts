import * as oauth from 'oauth4webapi';
import { beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { basic } from '../support/harness.js';
import { useSharedHarness } from '../support/use-harness.js';
import { oauth4webapiGrant } from './support.js';

describeEachEngine('token endpoint', (engine) => {
  // One instance for the block: each test has a client of its own and the clock where it started.
  const h = useSharedHarness(engine);
  let client: { id: string; clientId: string; clientSecret: string };

  beforeEach(async () => {
    const created = await h.asAdmin().post('/api/admin/v1/clients', { name: 'Shop' });
    client = created.json();
  });

  const decode = (token: string) =>
    JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
  const header = (token: string) =>
    JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as Record<string, unknown>;

  it('GET with Basic returns a Bearer token for one hour and ignores take', async () => {
    const response = await h
      .anonymous()
      .get('/api/auth/token?take=10', { headers: { authorization: basic(client.clientId, client.clientSecret) } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(3600);
    const claims = decode(body.access_token);
    expect(claims.sub).toBe(client.clientId);
    expect(claims.client_id).toBe(client.clientId);
    expect(claims.exp).toBe(Math.floor(h.clock.now() / 1000) + 3600);
    expect(claims.scope).toBe('offers:read lml:read webhooks:manage');
    expect(header(body.access_token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const jwks = (await h.anonymous().get('/.well-known/jwks.json')).json<{
      keys: { kid: string; d?: string }[];
    }>();
    expect(jwks.keys.map((key) => key.kid)).toContain(header(body.access_token).kid);
    expect(jwks.keys.every((key) => key.d === undefined)).toBe(true);
  });

  it('POST client_credentials with Basic and with form credentials', async () => {
    const viaBasic = await h.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: {
        authorization: basic(client.clientId, client.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: 'grant_type=client_credentials',
    });
    expect(viaBasic.statusCode).toBe(200);
    expect(viaBasic.json().token_type).toBe('Bearer');
    const viaForm = await h.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        scope: 'offers:read',
      }).toString(),
    });
    expect(viaForm.statusCode).toBe(200);
    expect(decode(viaForm.json().access_token).scope).toBe('offers:read');
  });

  it.each([
    ['wrong secret', () => basic(client.clientId, 'sms_wrong')],
    ['unknown client', () => basic('smc_nobody', client.clientSecret)],
    ['garbage Basic header', () => 'Basic !!!not-base64!!!'],
    ['Basic without colon', () => `Basic ${Buffer.from('justanid').toString('base64')}`],
    ['Bearer instead of Basic', () => 'Bearer abc'],
  ])('%s → 401 invalid_client', async (_name, authorization) => {
    const response = await h.anonymous().get('/api/auth/token', { headers: { authorization: authorization() } });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Basic realm="shelfmark", charset="UTF-8"');
    expect(response.json().error).toBe('invalid_client');
    expect(Object.keys(response.json()).sort()).toEqual(['error', 'error_description']);
  });

  it('missing header → 401 invalid_client', async () => {
    const response = await h.anonymous().get('/api/auth/token');
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      error: 'invalid_client',
      error_description: 'send Authorization: Basic base64(clientId:clientSecret)',
    });
  });

  it('revoked client → 401', async () => {
    expect((await h.asAdmin().delete(`/api/admin/v1/clients/${client.id}`)).statusCode).toBe(204);
    const response = await h
      .anonymous()
      .get('/api/auth/token', { headers: { authorization: basic(client.clientId, client.clientSecret) } });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_client');
  });

  it('after a secret reset the old secret fails and the new one works', async () => {
    const reset = await h.asAdmin().post(`/api/admin/v1/clients/${client.id}/secret`);
    expect(reset.statusCode).toBe(200);
    const { clientSecret } = reset.json<{ clientSecret: string }>();
    expect(clientSecret).toMatch(/^sms_[0-9A-Za-z]{43}$/);
    expect(
      (
        await h
          .anonymous()
          .get('/api/auth/token', { headers: { authorization: basic(client.clientId, client.clientSecret) } })
      ).statusCode,
    ).toBe(401);
    expect(
      (await h.anonymous().get('/api/auth/token', { headers: { authorization: basic(client.clientId, clientSecret) } }))
        .statusCode,
    ).toBe(200);
  });

  it('POST errors use the RFC 6749 shape', async () => {
    const form = (payload: string, headers: Record<string, string> = {}) =>
      h.app.inject({
        method: 'POST',
        url: '/api/auth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload,
      });
    expect((await form('grant_type=password')).json()).toEqual({
      error: 'unsupported_grant_type',
      error_description: 'only grant_type=client_credentials is supported',
    });
    expect((await form('')).json()).toEqual({ error: 'invalid_request', error_description: 'grant_type is required' });
    const both = await form(
      `grant_type=client_credentials&client_id=${client.clientId}&client_secret=${client.clientSecret}`,
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expect(both.statusCode).toBe(400);
    expect(both.json().error).toBe('invalid_request');
    const badScope = await form('grant_type=client_credentials&scope=admin', {
      authorization: basic(client.clientId, client.clientSecret),
    });
    expect(badScope.statusCode).toBe(400);
    expect(badScope.json().error).toBe('invalid_scope');
  });

  it('a standard OAuth client (oauth4webapi) obtains a token unmodified over a real socket', async () => {
    const base = await h.listen();
    const as: oauth.AuthorizationServer = { issuer: 'urn:shelfmark', token_endpoint: `${base}/api/auth/token` };
    const result = await oauth4webapiGrant(as, client.clientId, oauth.ClientSecretBasic(client.clientSecret), {
      [oauth.allowInsecureRequests]: true,
    });
    expect(result.token_type).toBe('bearer');
    expect(result.expires_in).toBe(3600);
    expect(typeof result.access_token).toBe('string');
    const viaPost = await oauth4webapiGrant(
      as,
      client.clientId,
      oauth.ClientSecretPost(client.clientSecret),
      { [oauth.allowInsecureRequests]: true },
      new URLSearchParams({ scope: 'lml:read' }),
    );
    expect(viaPost.scope).toBeUndefined();
  });
});
