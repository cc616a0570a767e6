/**
 * Tokens signed with the service's own key but with claims it would never mint: issued in the future,
 * or living longer than TOKEN_TTL_SECONDS. A stolen key or a node with a broken clock must not be able
 * to mint long-lived tokens that every node accepts.
 */
import { SignJWT } from 'jose';
import { expect, it } from 'vitest';
import { InvalidScope } from '../../src/auth/oauth-errors.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

const URL = '/api/v1/offers?eans=9789001891442';

describeEachEngine('token lifetime', (engine) => {
  const h = useHarness(engine, { client: true });

  /** A token signed by the active key with the claims the service mints, iat and exp as given. */
  async function signed(iatSeconds: number, expSeconds: number): Promise<string> {
    const key = await h.services.signingKeys.active();
    const claims = JSON.parse(Buffer.from(h.client.token.split('.')[1] ?? '', 'base64url').toString()) as Record<
      string,
      unknown
    >;
    return new SignJWT({ ...claims, iat: iatSeconds, exp: expSeconds })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
      .sign(key.signingKey);
  }

  const call = (token: string) => h.as(token).get(URL);
  const now = () => Math.floor(h.clock.now() / 1000);
  const ttl = () => h.config.tokenTtlSeconds;

  it('a token re-signed with its own claims works (the helper signs like the service)', async () => {
    expect((await call(await signed(now(), now() + ttl()))).statusCode).toBe(200);
  });

  it('iat 24 h in the future with a 25 h lifetime → 401 invalid-token', async () => {
    const response = await call(await signed(now() + 86_400, now() + 90_000));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'invalid-token' });
  });

  it('iat within 60 s of clock skew is accepted; 61 s ahead is not', async () => {
    expect((await call(await signed(now() + 60, now() + 60 + ttl()))).statusCode).toBe(200);
    expect((await call(await signed(now() + 61, now() + 61 + ttl() - 1))).statusCode).toBe(401);
  });

  it('a lifetime longer than TOKEN_TTL_SECONDS → 401, even when iat is in the past', async () => {
    expect((await call(await signed(now() - 10, now() - 10 + ttl() + 1))).statusCode).toBe(401);
  });

  it('TokenService.issue holds every caller to the client allow-list, not only the token endpoint', async () => {
    const limited = await createClientWithToken(h, 'Limited', ['lml:read']);
    const row = await h.services.clients.authenticate(limited.clientId, limited.clientSecret);
    if (row === undefined || row === 'revoked') throw new Error('client did not authenticate');
    await expect(h.services.tokens.issue(row, ['offers:read'])).rejects.toBeInstanceOf(InvalidScope);
    await expect(h.services.tokens.issue(row, ['offers:read'])).rejects.toThrow(
      'the client may not request: offers:read',
    );
    expect((await h.services.tokens.issue(row, ['lml:read'])).scope).toBe('lml:read');
  });
});
