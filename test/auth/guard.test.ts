import { base64url, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { describeEachEngine } from '../support/engines.js';
import { basic, createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

const EAN = '9789001891442';
const URL = `/api/v1/offers?eans=${EAN}`;
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

describeEachEngine('bearer guard', (engine) => {
  const h = useHarness(engine, { client: true });

  const call = (headers: Record<string, string> = {}) => h.anonymous().get(URL, { headers });
  const withToken = (token: string) => call({ authorization: `Bearer ${token}` });
  const parts = (token: string): [string, string, string] => {
    const [header = '', payload = '', signature = ''] = token.split('.');
    return [header, payload, signature];
  };
  const claimsOf = (token: string) =>
    JSON.parse(new TextDecoder().decode(base64url.decode(parts(token)[1]))) as Record<string, unknown>;
  const encode = (value: object) => base64url.encode(JSON.stringify(value));

  /** A refusal in the problem shape, with its status and the Bearer challenge it answers with. */
  function expectRefused(response: Awaited<ReturnType<typeof call>>, status: number, challenge: string): void {
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toBe(PROBLEM_TYPE);
    expect(response.headers['www-authenticate']).toBe(challenge);
  }

  async function expectInvalid(token: string): Promise<void> {
    const response = await withToken(token);
    expectRefused(response, 401, 'Bearer realm="shelfmark", error="invalid_token", error_description="invalid token"');
    expect(response.json()).toMatchObject({
      code: 'invalid-token',
      status: 401,
      detail: 'the access token is malformed, forged or no longer valid',
    });
  }

  it('a valid token → 200', async () => {
    await h.services.offers.create({ ean: EAN, price: 10, condition: 'good' }, SYSTEM);
    const response = await call(h.client.bearer);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toHaveLength(1);
    // The scheme name is case-insensitive (RFC 9110 §11.1).
    expect((await call({ authorization: `bearer ${h.client.token}` })).statusCode).toBe(200);
  });

  it('no Authorization header → 401 unauthenticated with a Bearer challenge, in the full problem shape', async () => {
    const response = await call({ 'x-request-id': 'guard-test-1' });
    expectRefused(response, 401, 'Bearer realm="shelfmark"');
    expect(response.headers['x-request-id']).toBe('guard-test-1');
    expect(response.json()).toEqual({
      type: '/problems/unauthenticated',
      title: 'Authentication required',
      status: 401,
      detail: 'send Authorization: Bearer <access token>',
      instance: 'guard-test-1',
      code: 'unauthenticated',
    });
  });

  it('instance is the generated request id when the client sends none', async () => {
    const response = await withToken('garbage');
    const requestId = response.headers['x-request-id'];
    expect(typeof requestId).toBe('string');
    expect(response.json()).toEqual({
      type: '/problems/invalid-token',
      title: 'The access token is invalid',
      status: 401,
      detail: 'the access token is malformed, forged or no longer valid',
      instance: requestId,
      code: 'invalid-token',
    });
  });

  it.each(['garbage', 'a.b.c', 'eyJhbGciOiJFUzI1NiJ9.e30.AAAA', `${'x'.repeat(2000)}`])(
    'garbage token %# → 401 invalid-token',
    async (token) => {
      await expectInvalid(token);
    },
  );

  it('a malformed Authorization header → 401 invalid-token', async () => {
    for (const authorization of [
      'Bearer',
      'Bearer ',
      'Token abc',
      basic(h.client.clientId, h.client.clientSecret),
      `Bearer ${h.client.token} extra`,
    ]) {
      const response = await call({ authorization });
      expect(response.statusCode, authorization).toBe(401);
      expect(response.json().code).toBe('invalid-token');
    }
  });

  it('an expired token → 403 token-expired with error="invalid_token" (cached and never-seen tokens alike)', async () => {
    expect((await call(h.client.bearer)).statusCode).toBe(200);
    const unseen = (
      await h
        .anonymous()
        .get('/api/auth/token', { headers: { authorization: basic(h.client.clientId, h.client.clientSecret) } })
    ).json().access_token as string;
    h.clock.advance((h.config.tokenTtlSeconds + 1) * 1000);
    for (const token of [h.client.token, unseen]) {
      const response = await withToken(token);
      expectRefused(
        response,
        403,
        'Bearer realm="shelfmark", error="invalid_token", error_description="token expired"',
      );
      expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(response.json()).toMatchObject({ type: '/problems/token-expired', status: 403, code: 'token-expired' });
    }
  });

  it('a token one second before expiry still works', async () => {
    h.clock.advance((h.config.tokenTtlSeconds - 1) * 1000);
    expect((await call(h.client.bearer)).statusCode).toBe(200);
  });

  it('a token signed by another ES256 key under the real kid → 401', async () => {
    const { kid } = decodeProtectedHeader(h.client.token);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(claimsOf(h.client.token))
      .setProtectedHeader({ alg: 'ES256', kid: kid ?? '', typ: 'at+jwt' })
      .sign(privateKey);
    await expectInvalid(forged);
  });

  it('an alg:none token → 401', async () => {
    const { kid } = decodeProtectedHeader(h.client.token);
    await expectInvalid(`${encode({ alg: 'none', typ: 'at+jwt', kid })}.${parts(h.client.token)[1]}.`);
    await expectInvalid(`${encode({ alg: 'none', typ: 'at+jwt', kid })}.${parts(h.client.token)[1]}`);
  });

  it('an HS256 token keyed with the public JWK (algorithm confusion) → 401', async () => {
    const { kid } = decodeProtectedHeader(h.client.token);
    const jwks = (await h.anonymous().get('/.well-known/jwks.json')).json<{
      keys: { kid: string }[];
    }>();
    const publicJwk = jwks.keys.find((key) => key.kid === kid);
    expect(publicJwk).toBeDefined();
    const claims = claimsOf(h.client.token);
    for (const secret of [JSON.stringify(publicJwk), JSON.stringify(jwks)]) {
      const forged = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: kid ?? '', typ: 'at+jwt' })
        .sign(new TextEncoder().encode(secret));
      await expectInvalid(forged);
    }
  });

  it('a tampered payload with the original signature → 401', async () => {
    const [header, , signature] = parts(h.client.token);
    const claims = claimsOf(h.client.token);
    const other = await createClientWithToken(h, 'Other shop');
    await expectInvalid(
      `${header}.${encode({ ...claims, sub: other.clientId, client_id: other.clientId })}.${signature}`,
    );
    await expectInvalid(
      `${header}.${encode({ ...claims, scope: 'offers:read lml:read webhooks:manage admin' })}.${signature}`,
    );
    await expectInvalid(`${header}.${encode({ ...claims, exp: Number(claims.exp) + 86_400 })}.${signature}`);
    // The untouched token still works, so the refusals above come from the tampering alone.
    expect((await call(h.client.bearer)).statusCode).toBe(200);
  });

  it('a token issued before a secret reset → 401, while a token from the new secret works', async () => {
    expect((await call(h.client.bearer)).statusCode).toBe(200);
    const reset = await h.asAdmin().post(`/api/admin/v1/clients/${h.client.id}/secret`);
    const { clientSecret } = reset.json<{ clientSecret: string }>();
    await expectInvalid(h.client.token);
    const fresh = await h
      .anonymous()
      .get('/api/auth/token', { headers: { authorization: basic(h.client.clientId, clientSecret) } });
    expect(fresh.statusCode).toBe(200);
    expect((await withToken(fresh.json().access_token)).statusCode).toBe(200);
    await expectInvalid(h.client.token);
  });

  it("a revoked client's token → 401", async () => {
    expect((await call(h.client.bearer)).statusCode).toBe(200);
    expect((await h.asAdmin().delete(`/api/admin/v1/clients/${h.client.id}`)).statusCode).toBe(204);
    await expectInvalid(h.client.token);
  });

  it('a token without offers:read → 403 insufficient-scope', async () => {
    const issued = await h.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: {
        authorization: basic(h.client.clientId, h.client.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: 'grant_type=client_credentials&scope=lml:read',
    });
    expect(issued.statusCode).toBe(200);
    const response = await withToken(issued.json().access_token);
    expectRefused(response, 403, 'Bearer realm="shelfmark", error="insufficient_scope", scope="offers:read"');
    expect(response.json()).toEqual({
      type: '/problems/insufficient-scope',
      title: 'The access token lacks the required scope',
      status: 403,
      detail: 'this call needs the scope offers:read',
      instance: response.headers['x-request-id'],
      code: 'insufficient-scope',
      requiredScope: 'offers:read',
    });
  });

  it('a client created with only lml:read cannot read offers either', async () => {
    const limited = await createClientWithToken(h, 'LML reader', ['lml:read']);
    const response = await call(limited.bearer);
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('insufficient-scope');
  });

  it('the guard also holds over a real socket', async () => {
    const base = await h.listen();
    const denied = await fetch(`${base}${URL}`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toBe('Bearer realm="shelfmark"');
    const allowed = await fetch(`${base}${URL}`, { headers: h.client.bearer });
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual([]);
  });
});
