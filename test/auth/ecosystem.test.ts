/**
 * Standard OAuth clients, unmodified, against a default server (no PUBLIC_BASE_URL) and against one
 * behind a TLS-terminating proxy: discovery (RFC 8414), the client credentials grant, and remote JWKS
 * verification with the advertised issuer and audience. Everything runs over real loopback sockets.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildApp } from '../../src/main/app.js';
import { describeEachEngine } from '../support/engines.js';
import { basic } from '../support/harness.js';
import { freshHarness, useHarness } from '../support/use-harness.js';
import { oauth4webapiGrant } from './support.js';

interface Metadata {
  issuer: string;
  token_endpoint: string;
  jwks_uri: string;
  audience: string;
  response_types_supported: string[];
}

/** A TLS-terminating proxy in miniature: forwards to the app and says the client spoke https to `host`. */
async function tlsProxy(target: string, host: string): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, 'x-forwarded-proto': 'https', 'x-forwarded-host': host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describeEachEngine('OAuth ecosystem clients', (engine) => {
  const h = useHarness(engine, { config: { trustedProxies: ['127.0.0.1'] } });
  let creds: { clientId: string; clientSecret: string };
  let proxy: Server | undefined;

  beforeEach(async () => {
    const created = await h
      .asAdmin()
      .post('/api/admin/v1/clients', { name: 'Integrator', scopes: ['offers:read', 'lml:read'] });
    creds = created.json();
  });
  afterEach(async () => {
    await new Promise((resolve) => (proxy === undefined ? resolve(undefined) : proxy.close(resolve)));
    proxy = undefined;
  });

  // The harness clock is fixed in 2026-09; verify against it, not the wall clock.
  const verifyAt = () => new Date(h.clock.now());

  it('default server: openid-client discovers, obtains a token, and jose verifies it remotely with the advertised issuer and audience', async () => {
    const base = await h.listen();
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Metadata;
    expect(metadata).toMatchObject({
      issuer: base,
      token_endpoint: `${base}/api/auth/token`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      audience: 'shelfmark-api',
      response_types_supported: [],
    });

    const config = await client.discovery(new URL(base), creds.clientId, creds.clientSecret, undefined, {
      algorithm: 'oauth2',
      execute: [client.allowInsecureRequests],
    });
    expect(config.serverMetadata().issuer).toBe(base);
    const tokens = await client.clientCredentialsGrant(config);
    expect(tokens.token_type).toBe('bearer');
    // No scope requested: the response names what was granted (RFC 6749 §5.1).
    expect(tokens.scope).toBe('offers:read lml:read');
    const narrowed = await client.clientCredentialsGrant(config, { scope: 'lml:read' });
    expect(narrowed.scope).toBeUndefined();

    const jwks = jose.createRemoteJWKSet(new URL(metadata.jwks_uri));
    const { payload, protectedHeader } = await jose.jwtVerify(tokens.access_token, jwks, {
      issuer: base,
      audience: metadata.audience,
      typ: 'at+jwt',
      currentDate: verifyAt(),
    });
    expect(payload).toMatchObject({
      iss: base,
      aud: 'shelfmark-api',
      sub: creds.clientId,
      client_id: creds.clientId,
      scope: 'offers:read lml:read',
    });
    expect(protectedHeader.typ).toBe('at+jwt');

    // The token works on the API it was minted for.
    const offers = await fetch(`${base}/api/v1/offers?eans=9789001891442`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(offers.status).toBe(200);
  });

  it('default server: oauth4webapi discovers and obtains a token with client_secret_basic and client_secret_post', async () => {
    const base = await h.listen();
    const issuer = new URL(base);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true }),
    );
    expect(as.issuer).toBe(base);
    for (const auth of [oauth.ClientSecretBasic(creds.clientSecret), oauth.ClientSecretPost(creds.clientSecret)]) {
      const result = await oauth4webapiGrant(as, creds.clientId, auth, { [oauth.allowInsecureRequests]: true });
      expect(result.scope).toBe('offers:read lml:read');
      const { payload } = await jose.jwtVerify(
        result.access_token,
        jose.createRemoteJWKSet(new URL(as.jwks_uri ?? '')),
        { issuer: as.issuer, audience: 'shelfmark-api', currentDate: verifyAt() },
      );
      expect(payload.iss).toBe(base);
    }
  });

  it('behind a TLS proxy: https issuer and endpoints, and all three libraries work through it', async () => {
    const base = await h.listen();
    const front = await tlsProxy(base, 'api.shop.example');
    proxy = front.server;
    const origin = 'https://api.shop.example';
    // The clients speak https to the public origin; this fetch stands in for DNS + TLS, landing on the proxy.
    const viaProxy = (url: string | URL, init?: RequestInit): Promise<Response> =>
      fetch(String(url).replace(origin, front.url), init);

    const metadata = (await (await viaProxy(`${origin}/.well-known/oauth-authorization-server`)).json()) as Metadata;
    expect(metadata).toMatchObject({
      issuer: origin,
      token_endpoint: `${origin}/api/auth/token`,
      jwks_uri: `${origin}/.well-known/jwks.json`,
    });

    const config = await client.discovery(
      new URL(origin),
      creds.clientId,
      creds.clientSecret,
      client.ClientSecretBasic(creds.clientSecret),
      {
        algorithm: 'oauth2',
        [client.customFetch]: viaProxy,
      },
    );
    config[client.customFetch] = viaProxy;
    const tokens = await client.clientCredentialsGrant(config, { scope: 'offers:read' });

    const issuer = new URL(origin);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.customFetch]: viaProxy }),
    );
    const other = await oauth4webapiGrant(as, creds.clientId, oauth.ClientSecretPost(creds.clientSecret), {
      [oauth.customFetch]: viaProxy,
    });

    const jwks = jose.createRemoteJWKSet(new URL(metadata.jwks_uri), { [jose.customFetch]: viaProxy });
    for (const token of [tokens.access_token, other.access_token]) {
      const { payload } = await jose.jwtVerify(token, jwks, {
        issuer: origin,
        audience: metadata.audience,
        currentDate: verifyAt(),
      });
      expect(payload.iss).toBe(origin);
    }
  });

  it('X-Forwarded-* from an address that is not a trusted proxy changes nothing', async () => {
    const h = await freshHarness(engine);
    const base = await h.listen();
    const metadata = (await (
      await fetch(`${base}/.well-known/oauth-authorization-server`, {
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' },
      })
    ).json()) as Metadata;
    expect(metadata.issuer).toBe(base);
    expect(metadata.token_endpoint).toBe(`${base}/api/auth/token`);
  });

  it('PUBLIC_BASE_URL wins over the request origin and is enforced when verifying', async () => {
    const h = await freshHarness(engine, { publicBaseUrl: 'https://api.shop.example', trustedProxies: ['127.0.0.1'] });
    const created = (await h.asAdmin().post('/api/admin/v1/clients', { name: 'X' })).json<{
      clientId: string;
      clientSecret: string;
    }>();
    const metadata = (
      await h.anonymous().get('/.well-known/oauth-authorization-server', { headers: { host: 'other.example' } })
    ).json<Metadata>();
    expect(metadata.issuer).toBe('https://api.shop.example');
    const token = (
      await h
        .anonymous()
        .get('/api/auth/token', { headers: { authorization: basic(created.clientId, created.clientSecret) } })
    ).json<{ access_token: string }>().access_token;
    expect(jose.decodeJwt(token).iss).toBe('https://api.shop.example');
    // A genuine key but another issuer: refused.
    const keys = h.services.signingKeys;
    const key = await keys.active();
    const foreign = await new jose.SignJWT({ client_id: created.clientId, scope: 'offers:read', sv: 1 })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
      .setIssuer('https://elsewhere.example')
      .setAudience('shelfmark-api')
      .setSubject(created.clientId)
      .setIssuedAt(Math.floor(h.clock.now() / 1000))
      .setExpirationTime(Math.floor(h.clock.now() / 1000) + 60)
      .sign(key.signingKey);
    const refused = await h.as(foreign).get('/api/v1/offers?eans=9789001891442');
    expect(refused.statusCode).toBe(401);
    const accepted = await h.as(token).get('/api/v1/offers?eans=9789001891442');
    expect(accepted.statusCode).toBe(200);
  });

  it('a token minted by one node through one origin verifies on another node reached through another origin', async () => {
    const other = await buildApp({ config: h.config, db: h.database.db, clock: h.clock }, { logger: false });
    try {
      const minted = await h.anonymous().get('/api/auth/token', {
        headers: { host: 'node-a.internal:3000', authorization: basic(creds.clientId, creds.clientSecret) },
      });
      const token = minted.json<{ access_token: string }>().access_token;
      expect(jose.decodeJwt(token).iss).toBe('http://node-a.internal:3000');
      const used = await other.inject({
        method: 'GET',
        url: '/api/v1/offers?eans=9789001891442',
        headers: { host: 'api.shop.example', authorization: `Bearer ${token}` },
      });
      expect(used.statusCode).toBe(200);
      // A token signed by a key that is not this deployment's is refused whatever its issuer.
      const { privateKey } = await jose.generateKeyPair('ES256');
      const forged = await new jose.SignJWT({ client_id: creds.clientId, scope: 'offers:read', sv: 1 })
        .setProtectedHeader({ alg: 'ES256', kid: jose.decodeProtectedHeader(token).kid ?? '', typ: 'at+jwt' })
        .setIssuer('http://node-a.internal:3000')
        .setAudience('shelfmark-api')
        .setSubject(creds.clientId)
        .setIssuedAt(Math.floor(h.clock.now() / 1000))
        .setExpirationTime(Math.floor(h.clock.now() / 1000) + 60)
        .sign(privateKey);
      expect(
        (
          await other.inject({
            method: 'GET',
            url: '/api/v1/offers?eans=9789001891442',
            headers: { authorization: `Bearer ${forged}` },
          })
        ).statusCode,
      ).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('a client_secret_post failure carries no Basic challenge, so clients show the description; Basic failures do', async () => {
    const post = await h.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&client_id=${creds.clientId}&client_secret=wrong`,
    });
    expect(post.statusCode).toBe(401);
    expect(post.headers['www-authenticate']).toBeUndefined();
    expect(post.json()).toEqual({
      error: 'invalid_client',
      error_description: 'client authentication failed: wrong client id or secret',
    });
    const viaBasic = await h.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(creds.clientId, 'wrong') },
      payload: 'grant_type=client_credentials',
    });
    expect(viaBasic.statusCode).toBe(401);
    expect(viaBasic.headers['www-authenticate']).toBe('Basic realm="shelfmark", charset="UTF-8"');

    // openid-client surfaces the server's description for client_secret_post.
    const base = await h.listen();
    const config = await client.discovery(new URL(base), creds.clientId, 'wrong', client.ClientSecretPost('wrong'), {
      algorithm: 'oauth2',
      execute: [client.allowInsecureRequests],
    });
    await expect(client.clientCredentialsGrant(config)).rejects.toMatchObject({
      error: 'invalid_client',
      error_description: 'client authentication failed: wrong client id or secret',
    });
  });
});
