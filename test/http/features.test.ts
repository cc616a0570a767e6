/** CORS, compression, ETag/304 and the unknown-query-parameter rule, end to end through the app. */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { createSchool } from '../lml/support.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';

const MATH = '9789001891442';
const SHOP = 'https://shop.example';

describeEachEngine('HTTP features', (engine) => {
  let h: Harness;
  let bearer: Record<string, string>;

  const start = async (overrides: Partial<Config> = {}) => {
    h = await createHarness(engine, overrides);
    bearer = (await createClientWithToken(h)).bearer;
  };
  afterEach(async () => h.close());

  /** Enough published offers for one EAN that the answer is well above the compression threshold. */
  const seedOffers = async (count: number) => {
    for (let i = 0; i < count; i += 1) {
      const created = await h.app.inject({
        method: 'POST',
        url: '/api/admin/v1/offers',
        headers: h.admin,
        payload: { ean: MATH, price: 10 + i, condition: 'good', remarks: `copy ${i} with a few words of remarks` },
      });
      expect(created.statusCode).toBe(201);
    }
  };
  it('CORS off by default: a preflight is not answered and no Allow-Origin appears, except on the public discovery documents', async () => {
    await start();
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/offers?eans=1',
      headers: { origin: SHOP, 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(404);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const offers = await h.app.inject({
      method: 'GET',
      url: `/api/v1/offers?eans=${MATH}`,
      headers: { ...bearer, origin: SHOP },
    });
    expect(offers.headers['access-control-allow-origin']).toBeUndefined();
    for (const url of ['/.well-known/jwks.json', '/.well-known/oauth-authorization-server']) {
      const doc = await h.app.inject({ method: 'GET', url, headers: { origin: SHOP } });
      expect(doc.statusCode, url).toBe(200);
      expect(doc.headers['access-control-allow-origin'], url).toBe('*');
    }
  });

  it('CORS_ORIGINS: a listed origin gets its preflight answered and the API readable; others are refused', async () => {
    await start({ corsOrigins: [SHOP] });
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/offers?eans=1',
      headers: {
        origin: SHOP,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization,idempotency-key',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(SHOP);
    expect(preflight.headers['access-control-allow-methods']).toContain('GET');
    expect(preflight.headers['access-control-allow-headers']).toBe(
      'authorization, content-type, idempotency-key, if-none-match, x-request-id',
    );
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    expect(preflight.headers['access-control-max-age']).toBe('600');

    const read = await h.app.inject({
      method: 'GET',
      url: `/api/v1/offers?eans=${MATH}`,
      headers: { ...bearer, origin: SHOP },
    });
    expect(read.headers['access-control-allow-origin']).toBe(SHOP);
    expect(read.headers['access-control-expose-headers']).toContain('etag');

    const stranger = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/offers',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    const strangerRead = await h.app.inject({
      method: 'GET',
      url: `/api/v1/offers?eans=${MATH}`,
      headers: { ...bearer, origin: 'https://evil.example' },
    });
    expect(strangerRead.headers['access-control-allow-origin']).toBeUndefined();

    // The discovery documents stay open to everyone.
    const jwks = await h.app.inject({
      method: 'GET',
      url: '/.well-known/jwks.json',
      headers: { origin: 'https://evil.example' },
    });
    expect(jwks.headers['access-control-allow-origin']).toBe('*');

    // The token endpoint stays closed to browsers unless CORS_TOKEN_ENDPOINT says otherwise.
    const token = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/auth/token',
      headers: { origin: SHOP, 'access-control-request-method': 'POST' },
    });
    expect(token.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('CORS_TOKEN_ENDPOINT opens the token endpoint to the listed origins', async () => {
    await start({ corsOrigins: [SHOP], corsTokenEndpoint: true });
    const token = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/auth/token',
      headers: { origin: SHOP, 'access-control-request-method': 'POST' },
    });
    expect(token.statusCode).toBe(204);
    expect(token.headers['access-control-allow-origin']).toBe(SHOP);
  });

  it('compresses with gzip or brotli when asked and above the threshold; small or unasked answers stay plain', async () => {
    await start();
    await seedOffers(40);
    const plain = await h.app.inject({ method: 'GET', url: `/api/v1/offers?eans=${MATH}`, headers: bearer });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);

    const gzip = await h.app.inject({
      method: 'GET',
      url: `/api/v1/offers?eans=${MATH}`,
      headers: { ...bearer, 'accept-encoding': 'gzip' },
    });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toContain('accept-encoding');
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(plain.body);
    expect(gzip.rawPayload.length).toBeLessThan(plain.body.length / 3);

    const br = await h.app.inject({
      method: 'GET',
      url: `/api/v1/offers?eans=${MATH}`,
      headers: { ...bearer, 'accept-encoding': 'gzip;q=0.5, br' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);

    const spec = await h.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'br' } });
    expect(spec.headers['content-encoding']).toBe('br');

    const small = await h.app.inject({ method: 'GET', url: '/healthz', headers: { 'accept-encoding': 'gzip' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toEqual({ status: 'ok' });
  });

  it('strong ETag on offers and LML reads; If-None-Match answers 304 without a body; a change makes a new tag', async () => {
    await start();
    await seedOffers(2);
    const url = `/api/v1/offers?eans=${MATH}`;
    const first = await h.app.inject({ method: 'GET', url, headers: bearer });
    const tag = first.headers.etag;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect((await h.app.inject({ method: 'GET', url, headers: bearer })).headers.etag).toBe(tag);

    const notModified = await h.app.inject({
      method: 'GET',
      url,
      headers: { ...bearer, 'if-none-match': String(tag) },
    });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.headers.etag).toBe(tag);
    const listed = await h.app.inject({
      method: 'GET',
      url,
      headers: { ...bearer, 'if-none-match': `"other", W/${String(tag)}` },
    });
    expect(listed.statusCode).toBe(304);
    const stale = await h.app.inject({ method: 'GET', url, headers: { ...bearer, 'if-none-match': '"stale"' } });
    expect(stale.statusCode).toBe(200);
    expect(stale.body).toBe(first.body);

    await seedOffers(1);
    const changed = await h.app.inject({ method: 'GET', url, headers: { ...bearer, 'if-none-match': String(tag) } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(tag);

    // A compressed answer names its encoding in the tag; the plain tag still revalidates it.
    await seedOffers(20);
    const gz = await h.app.inject({ method: 'GET', url, headers: { ...bearer, 'accept-encoding': 'gzip' } });
    const plainTag = (await h.app.inject({ method: 'GET', url, headers: bearer })).headers.etag;
    expect(gz.headers.etag).toBe(`${String(plainTag).slice(0, -1)}-gzip"`);
    const revalidated = await h.app.inject({
      method: 'GET',
      url,
      headers: { ...bearer, 'accept-encoding': 'gzip', 'if-none-match': String(gz.headers.etag) },
    });
    expect(revalidated.statusCode).toBe(304);

    const school = await createSchool(h);
    for (const path of [
      '/api/lml/v1/schools',
      `/api/lml/v1/schools/${school.identifier}`,
      '/api/lml/v1/lists',
      '/api/lml/v1/structure',
      '/api/admin/v1/schools',
    ]) {
      const headers = path.startsWith('/api/admin') ? h.admin : bearer;
      const read = await h.app.inject({ method: 'GET', url: path, headers });
      expect(read.statusCode, path).toBe(200);
      expect(read.headers.etag, path).toBeDefined();
      expect(
        (
          await h.app.inject({
            method: 'GET',
            url: path,
            headers: { ...headers, 'if-none-match': String(read.headers.etag) },
          })
        ).statusCode,
        path,
      ).toBe(304);
    }
    // Errors and unrelated routes carry no tag.
    expect(
      (await h.app.inject({ method: 'GET', url: '/api/v1/offers?eans=123', headers: bearer })).headers.etag,
    ).toBeUndefined();
    expect(
      (await h.app.inject({ method: 'GET', url: '/api/lml/v1/subscriptions', headers: bearer })).headers.etag,
    ).toBeUndefined();
  });

  it('unknown query parameters are ignored on every collection; defaulted parameters are optional', async () => {
    await start();
    const paths = [
      `/api/v1/offers?eans=${MATH}`,
      '/api/lml/v1/schools?',
      '/api/lml/v1/lists?',
      '/api/lml/v1/structure?',
      '/api/lml/v1/subscriptions?',
      '/api/admin/v1/offers?',
      '/api/admin/v1/schools?',
      '/api/admin/v1/lists?',
      '/api/admin/v1/subscriptions?',
      '/api/admin/v1/deliveries?',
      '/api/admin/v1/clients?',
    ];
    for (const path of paths) {
      const headers = path.startsWith('/api/admin') ? h.admin : bearer;
      const sep = path.endsWith('?') ? '' : '&';
      const response = await h.app.inject({ method: 'GET', url: `${path}${sep}_=1&utm_source=newsletter`, headers });
      expect(response.statusCode, `${path} ${response.body}`).toBe(200);
    }
    // Known parameters are still validated.
    const bad = await h.app.inject({ method: 'GET', url: '/api/lml/v1/schools?limit=0&_=1', headers: bearer });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('validation-failed');
  });
});
