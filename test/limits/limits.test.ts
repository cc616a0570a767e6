/**
 * The limits: per-client request rate (token bucket, IETF RateLimit fields, 429 + Retry-After),
 * the brute-force limit of the token endpoint (a failing attacker elsewhere never locks the real client
 * out), and the body, URL, header and subscription caps. Time is a ManualClock: refills without sleeping.
 */
import { request as httpRequest } from 'node:http';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { TokenBuckets } from '../../src/limits/token-bucket.js';
import { isDatabaseUnavailable } from '../../src/problems/db-unavailable.js';
import { createDnsHarness, subscribe, type TestClient } from '../subscriptions/support.js';
import { describeEachEngine } from '../support/engines.js';
import { basic, createClientWithToken, createHarness } from '../support/harness.js';
import { problem } from '../support/problem.js';
import { useHarness } from '../support/use-harness.js';

const OFFERS = '/api/v1/offers?eans=9780194837125';

describe('TokenBuckets', () => {
  it('spends the burst, refuses without spending, and refills at the rate', () => {
    const clock = new ManualClock(1_000_000);
    const buckets = new TokenBuckets({ ratePerSecond: 2, burst: 3 }, clock);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([2, 1, 0]);
    expect(buckets.take('a')).toBe(-1);
    expect(buckets.secondsUntilToken('a')).toBe(1);
    expect(buckets.take('b')).toBe(2); // another key has its own bucket
    clock.advance(500); // 2/s → one token
    expect(buckets.take('a')).toBe(0);
    expect(buckets.take('a')).toBe(-1);
    clock.advance(60_000); // never above the burst
    expect(buckets.available('a')).toBe(3);
    expect(buckets.secondsUntilFull(0)).toBe(2);
  });

  it('a clock stepping back mints nothing', () => {
    const clock = new ManualClock(1_000_000);
    const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 1 }, clock);
    expect(buckets.take('a')).toBe(0);
    clock.set(500_000);
    expect(buckets.take('a')).toBe(-1);
  });

  it('holds at most maxKeys buckets, forgetting the oldest', () => {
    const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 1 }, new ManualClock(0), 3);
    for (const key of ['a', 'b', 'c', 'd', 'e']) buckets.take(key);
    expect(buckets.size).toBe(3);
    expect(buckets.take('a')).toBe(0); // forgotten, so full again
    expect(buckets.take('e')).toBe(-1);
  });
});

describe('limit configuration', () => {
  it('parses every limit variable', () => {
    const config = loadConfig({
      RATE_LIMIT_RATE: '5',
      RATE_LIMIT_BURST: '7',
      AUTH_FAILURES_PER_CLIENT_ADDRESS: '3',
      AUTH_FAILURES_PER_ADDRESS: '9',
      AUTH_FAILURE_WINDOW_SECONDS: '60',
      BODY_LIMIT_BYTES: '2048',
      MAX_HEADER_BYTES: '4096',
      MAX_URL_LENGTH: '1024',
      MAX_SUBSCRIPTIONS_PER_CLIENT: '2',
    });
    expect(config).toMatchObject({
      rateLimitRate: 5,
      rateLimitBurst: 7,
      authFailuresPerClientAddress: 3,
      authFailuresPerAddress: 9,
      authFailureWindowSeconds: 60,
      bodyLimitBytes: 2048,
      maxHeaderBytes: 4096,
      maxUrlLength: 1024,
      maxSubscriptionsPerClient: 2,
    });
    // The burst defaults to two seconds' worth of the rate.
    expect(loadConfig({ RATE_LIMIT_RATE: '50' }).rateLimitBurst).toBe(100);
  });

  it('refuses a URL limit that the header limit would cut first, and bad numbers', () => {
    expect(() => loadConfig({ MAX_URL_LENGTH: '20000' })).toThrow(
      new ConfigError('MAX_URL_LENGTH', 'must be below MAX_HEADER_BYTES (16384), got 20000'),
    );
    expect(() => loadConfig({ RATE_LIMIT_RATE: '-1' })).toThrow(ConfigError);
    expect(() => loadConfig({ AUTH_FAILURE_WINDOW_SECONDS: '0' })).toThrow(ConfigError);
  });
});

describe('isDatabaseUnavailable', () => {
  it('knows connection failures and shutdown states, and nothing else', () => {
    expect(
      isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })),
    ).toBe(true);
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
    ).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '08006' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })]))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});

describe('per-client request rate limit', () => {
  const h = useHarness('sqlite', { config: { rateLimitRate: 2, rateLimitBurst: 3 } });

  it('every guarded response carries RateLimit-Policy and RateLimit; past the burst a 429 problem with Retry-After', async () => {
    const shop = await createClientWithToken(h, 'Shop');
    const other = await createClientWithToken(h, 'Other');
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await h.as(shop).get(OFFERS);
      expect(response.statusCode).toBe(200);
      expect(response.headers['ratelimit-policy']).toBe('"client";q=3;w=2');
      remaining.push(String(response.headers.ratelimit));
    }
    expect(remaining).toEqual(['"client";r=2;t=1', '"client";r=1;t=1', '"client";r=0;t=2']);

    const refused = await h.as(shop).get(OFFERS);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['ratelimit-policy']).toBe('"client";q=3;w=2');
    expect(refused.headers.ratelimit).toBe('"client";r=0;t=1');
    expect(refused.json()).toEqual(
      problem(
        'rate-limited',
        429,
        'Too many requests',
        'this client sent more than 3 requests in a burst or more than 2 per second; retry after 1 s',
        { retryAfter: 1 },
      ),
    );

    // Another client is not affected; the admin API is not limited by client buckets.
    expect((await h.as(other).get(OFFERS)).statusCode).toBe(200);
    expect((await h.asAdmin().get('/api/admin/v1/clients')).statusCode).toBe(200);

    h.clock.advance(500); // one token back at 2/s
    const again = await h.as(shop).get(OFFERS);
    expect(again.statusCode).toBe(200);
    expect(again.headers.ratelimit).toBe('"client";r=0;t=2');
  });

  it('counts only verified clients: a bad token is a 401 and spends nothing', async () => {
    const shop = await createClientWithToken(h, 'Shop');
    for (let i = 0; i < 10; i++) {
      const response = await h.anonymous().get(OFFERS, { headers: { authorization: 'Bearer not-a-token' } });
      expect(response.statusCode).toBe(401);
      expect(response.headers['ratelimit-policy']).toBeUndefined();
    }
    expect((await h.as(shop).get(OFFERS)).headers.ratelimit).toBe('"client";r=2;t=1');
  });

  it('RATE_LIMIT_RATE=0 turns it off', async () => {
    const off = await createHarness('sqlite', { rateLimitRate: 0 });
    try {
      const shop = await createClientWithToken(off, 'Shop');
      for (let i = 0; i < 50; i++) {
        const response = await off.as(shop).get(OFFERS);
        expect(response.statusCode).toBe(200);
        expect(response.headers.ratelimit).toBeUndefined();
      }
    } finally {
      await off.close();
    }
  });
});

describe('brute-force limit of the token endpoint', () => {
  const h = useHarness('sqlite', {
    config: {
      authFailuresPerClientAddress: 3,
      authFailuresPerAddress: 5,
      authFailureWindowSeconds: 60,
    },
  });
  let shop: TestClient;
  const ATTACKER = '203.0.113.66';
  const SHOP_ADDRESS = '198.51.100.7';

  const token = (clientId: string, secret: string, remoteAddress: string) =>
    h.app.inject({
      method: 'GET',
      url: '/api/auth/token',
      headers: { authorization: basic(clientId, secret) },
      remoteAddress,
    });

  beforeEach(async () => {
    shop = await createClientWithToken(h, 'Shop');
  });

  it('locks the (client id, address) pair after the allowed failures, even for the right secret, but never the real client elsewhere', async () => {
    for (let i = 0; i < 3; i++) expect((await token(shop.clientId, `wrong-${i}`, ATTACKER)).statusCode).toBe(401);
    const locked = await token(shop.clientId, shop.clientSecret, ATTACKER);
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toBe('20');
    expect(locked.headers['cache-control']).toBe('no-store');
    expect(locked.json()).toEqual({
      error: 'too_many_attempts',
      error_description: 'too many failed authentications for this client from this address; retry after 20 s',
    });

    // The legitimate client, from its own address, is untouched by the attacker's failures.
    const legit = await token(shop.clientId, shop.clientSecret, SHOP_ADDRESS);
    expect(legit.statusCode).toBe(200);
    expect(legit.json<{ token_type: string }>().token_type).toBe('Bearer');

    // The window refills: 60 s / 3 failures → one attempt back every 20 s.
    h.clock.advance(20_000);
    expect((await token(shop.clientId, shop.clientSecret, ATTACKER)).statusCode).toBe(200);
  });

  it('limits one address spraying many client ids, and only that address', async () => {
    for (let i = 0; i < 5; i++) expect((await token(`smc_guess${i}`, 'x', ATTACKER)).statusCode).toBe(401);
    const refused = await token('smc_guess99', 'x', ATTACKER);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('12');
    expect((await token(shop.clientId, shop.clientSecret, SHOP_ADDRESS)).statusCode).toBe(200);
  });

  it('the POST form grant shares the limit, and successes spend nothing', async () => {
    for (let i = 0; i < 10; i++)
      expect((await token(shop.clientId, shop.clientSecret, SHOP_ADDRESS)).statusCode).toBe(200);
    const post = (secret: string) =>
      h.app.inject({
        method: 'POST',
        url: '/api/auth/token',
        remoteAddress: ATTACKER,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `grant_type=client_credentials&client_id=${shop.clientId}&client_secret=${secret}`,
      });
    for (let i = 0; i < 3; i++) expect((await post('nope')).statusCode).toBe(401);
    expect((await post(shop.clientSecret)).statusCode).toBe(429);
  });
});

describe('size caps', () => {
  const h = useHarness('sqlite', { config: { bodyLimitBytes: 2048, maxHeaderBytes: 4096, maxUrlLength: 1024 } });
  let base: string;
  beforeEach(async () => {
    base = await h.listen();
  });

  it('a body over BODY_LIMIT_BYTES is a 413 problem', async () => {
    const response = await h.asAdmin().post('/api/admin/v1/clients', { name: 'x'.repeat(3000) });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual(
      problem('body-too-large', 413, 'The request body is too large', 'the request body exceeds the size limit'),
    );
    expect(await h.database.db.kysely.selectFrom('clients').selectAll().execute()).toEqual([]);
  });

  it('a URL over MAX_URL_LENGTH is a 414 problem', async () => {
    const response = await fetch(`${base}/api/v1/offers?eans=${'1'.repeat(1100)}`);
    expect(response.status).toBe(414);
    expect(await response.json()).toEqual(
      problem(
        'uri-too-long',
        414,
        'The request URL is too long',
        `the URL has ${'/api/v1/offers?eans='.length + 1100} characters; at most 1024 are accepted`,
      ),
    );
  });

  it('headers over MAX_HEADER_BYTES are a 431 problem written by the parser hook', async () => {
    const { status, headers, body } = await new Promise<{
      status: number;
      headers: Record<string, unknown>;
      body: string;
    }>((resolve, reject) => {
      const req = httpRequest(`${base}/healthz`, { headers: { 'x-filler': 'y'.repeat(5000) } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(431);
    expect(headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(body)).toEqual({
      type: '/problems/headers-too-large',
      title: 'The request headers are too large',
      status: 431,
      detail: 'the request line and headers exceed 4096 bytes',
      code: 'headers-too-large',
    });
    // The process is fine afterwards.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});

describeEachEngine('subscriptions per client cap', (engine) => {
  const h = useHarness(engine, { create: (e) => createDnsHarness(e, { maxSubscriptionsPerClient: 2 }) });
  let shop: TestClient;
  beforeEach(async () => {
    shop = await createClientWithToken(h, 'Shop');
  });

  it('refuses the subscription past the cap with a 409 problem and stores nothing; a repeat of an existing one still answers 200', async () => {
    const url = (i: number) => `https://hooks.shop.example/h${i}`;
    expect((await subscribe(h, shop, { notificationUrl: url(1), event: 'list.updated' })).statusCode).toBe(201);
    expect((await subscribe(h, shop, { notificationUrl: url(2), event: 'list.updated' })).statusCode).toBe(201);
    const refused = await subscribe(h, shop, { notificationUrl: url(3), event: 'list.updated' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual(
      problem(
        'subscription-limit',
        409,
        'The client has reached its subscription limit',
        'a client may hold at most 2 subscriptions; delete one before creating another',
        { limit: 2 },
      ),
    );
    const repeat = await subscribe(h, shop, { notificationUrl: url(2), event: 'list.updated' });
    expect(repeat.statusCode).toBe(200);
    const rows = await h.database.db.kysely
      .selectFrom('subscriptions')
      .select('notification_url')
      .orderBy('notification_url')
      .execute();
    expect(rows).toEqual([{ notification_url: url(1) }, { notification_url: url(2) }]);
    // Another client has its own allowance.
    const other = await createClientWithToken(h, 'Other');
    expect((await subscribe(h, other, { notificationUrl: url(3), event: 'list.updated' })).statusCode).toBe(201);
  });
});
