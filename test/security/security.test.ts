/**
 * The security suite: JWT attacks, SSRF at registration and at connect time,
 * cross-client access, credential-guarded route groups without or with a wrong credential, the
 * brute-force limit, security headers on every HTML page, and, over the whole suite, no secret in
 * any captured log line.
 */
import { createHmac } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LookupFn } from '../../src/delivery/ssrf.js';
import { routeCatalog } from '../../src/observability/instrument.js';
import { addSubscription, attemptRows, deliverOnce, emit, type Receiver, startReceiver } from '../delivery/support.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, basic, createClientWithToken, type Harness } from '../support/harness.js';
import { emptyTables, useHarness, useSharedHarness } from '../support/use-harness.js';
import { capturedLogLines, rememberSecrets, secretsSeen, securityHarness } from './support.js';

type Client = Awaited<ReturnType<typeof createClientWithToken>>;
const OFFERS = '/api/v1/offers?eans=9780194837125';
const b64 = (value: object | string): string =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

async function client(h: Harness, name = 'Shop'): Promise<Client> {
  const created = await createClientWithToken(h, name);
  rememberSecrets(created.clientSecret, created.webhookSecret, created.token);
  return created;
}

const get = (h: Harness, token: string, url = OFFERS) => h.as(token).get(url);

describeEachEngine('JWT attacks on the bearer guard', (engine) => {
  const h = useHarness(engine, { create: securityHarness });
  let shop: Client;
  let claims: Record<string, unknown>;
  let header: Record<string, unknown>;
  beforeEach(async () => {
    shop = await client(h);
    const [head, body] = shop.token.split('.') as [string, string];
    header = JSON.parse(Buffer.from(head, 'base64url').toString()) as Record<string, unknown>;
    claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
  });

  const expectInvalid = async (token: string) => {
    const response = await get(h, token);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'invalid-token', status: 401 });
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
  };

  it('the genuine token works (control)', async () => {
    expect((await get(h, shop.token)).statusCode).toBe(200);
  });

  it('alg:none is refused', async () => {
    await expectInvalid(`${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims)}.`);
    await expectInvalid(`${b64({ ...header, alg: 'none' })}.${b64(claims)}.`);
  });

  it('HS256 signed with the public key (JWK JSON or its x coordinate) as the HMAC secret is refused', async () => {
    const jwks = (await h.anonymous().get('/.well-known/jwks.json')).json<{
      keys: Record<string, string>[];
    }>();
    const jwk = jwks.keys[0] ?? {};
    for (const secret of [JSON.stringify(jwk), jwk.x ?? '', `${jwk.x ?? ''}${jwk.y ?? ''}`]) {
      const input = `${b64({ ...header, alg: 'HS256' })}.${b64(claims)}`;
      await expectInvalid(`${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`);
    }
  });

  it('tampered claims (scope, client, expiry) with the original signature are refused', async () => {
    const signature = shop.token.split('.')[2] ?? '';
    const other = await client(h, 'Other');
    for (const change of [
      { scope: 'offers:read lml:read webhooks:manage admin' },
      { client_id: other.clientId, sub: other.clientId },
      { exp: Number(claims.exp) + 86_400 },
    ]) {
      await expectInvalid(`${shop.token.split('.')[0] ?? ''}.${b64({ ...claims, ...change })}.${signature}`);
    }
  });

  it('an unknown kid is refused', async () => {
    const [, body, signature] = shop.token.split('.') as [string, string, string];
    await expectInvalid(`${b64({ ...header, kid: 'key_doesnotexist' })}.${body}.${signature}`);
    await expectInvalid(`${b64({ alg: header.alg, typ: header.typ })}.${body}.${signature}`);
  });

  it('an expired token answers 403; a not-yet-valid one 401', async () => {
    const key = await h.services.signingKeys.active();
    const now = Math.floor(h.clock.now() / 1000);
    const sign = (extra: (jwt: SignJWT) => SignJWT) =>
      extra(
        new SignJWT({ client_id: shop.clientId, scope: 'offers:read', sv: claims.sv })
          .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
          .setIssuer(String(claims.iss))
          .setAudience(String(claims.aud))
          .setSubject(shop.clientId)
          .setIssuedAt(now),
      ).sign(key.signingKey);
    const notYet = await sign((jwt) => jwt.setNotBefore(now + 3600).setExpirationTime(now + 7200));
    rememberSecrets(notYet);
    await expectInvalid(notYet);
    h.clock.advance(3601 * 1000);
    const expired = await get(h, shop.token);
    expect(expired.statusCode).toBe(403);
    expect(expired.json()).toMatchObject({ code: 'token-expired' });
  });

  it('a token from another Shelfmark instance (its own keys) is refused, even for the same client id', async () => {
    const other = await securityHarness(engine);
    try {
      const foreign = await client(other, 'Foreign');
      await expectInvalid(foreign.token);
      const key = await other.services.signingKeys.active();
      const forged = await new SignJWT({ ...claims })
        .setProtectedHeader({ ...header, alg: 'ES256', kid: key.kid })
        .sign(key.signingKey);
      rememberSecrets(forged);
      await expectInvalid(forged);
    } finally {
      await other.close();
    }
  });

  it('the token of a revoked client is refused', async () => {
    expect((await h.asAdmin().delete(`/api/admin/v1/clients/${shop.id}`)).statusCode).toBe(204);
    await expectInvalid(shop.token);
    const again = await h
      .anonymous()
      .get('/api/auth/token', { headers: { authorization: basic(shop.clientId, shop.clientSecret) } });
    expect(again.statusCode).toBe(401);
  });
});

const FAKE_DNS: Record<string, string[]> = {
  'hooks.shop.example': ['93.184.215.14'],
  'metadata.example': ['169.254.169.254'],
  'inside.example': ['10.1.2.3'],
};
const lookupFrom =
  (table: Record<string, string[]>): LookupFn =>
  async (hostname) => {
    const addresses = table[hostname.toLowerCase()];
    if (addresses === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describeEachEngine('SSRF', (engine) => {
  // One instance for the block: each test has a client of its own and starts without subscriptions.
  const h = useSharedHarness(engine, {
    create: (e) => securityHarness(e, {}, lookupFrom(dns)),
    reset: emptyTables('subscriptions'),
  });
  let shop: Client;
  const dns: Record<string, string[]> = { ...FAKE_DNS };
  beforeEach(async () => {
    Object.assign(dns, FAKE_DNS);
    shop = await client(h);
  });

  const register = (notificationUrl: string) =>
    h.as(shop).post('/api/lml/v1/subscriptions', { notificationUrl, event: 'list.updated' });

  it.each([
    ['decimal IPv4', 'http://2130706433/h', 'loopback address 127.0.0.1'],
    ['octal IPv4', 'http://0177.0.0.1/h', 'loopback address 127.0.0.1'],
    ['hex IPv4', 'http://0x7f000001/h', 'loopback address 127.0.0.1'],
    ['short IPv4', 'http://127.1/h', 'loopback address 127.0.0.1'],
    [
      'IPv4-mapped IPv6',
      'http://[::ffff:127.0.0.1]/h',
      'IPv4-mapped IPv6 address ::ffff:7f00:1 (loopback address 127.0.0.1)',
    ],
    ['[::1]', 'http://[::1]/h', 'loopback address ::1'],
    [
      'cloud metadata',
      'http://169.254.169.254/latest/meta-data',
      'link-local (cloud metadata) address 169.254.169.254',
    ],
    [
      'a name resolving to metadata',
      'https://metadata.example/h',
      'metadata.example resolves to link-local (cloud metadata) address 169.254.169.254',
    ],
    [
      'a name resolving to a private address',
      'https://inside.example/h',
      'inside.example resolves to private address 10.1.2.3',
    ],
    ['the unspecified address', 'http://0/h', 'unspecified address 0.0.0.0'],
  ])('registration refuses %s with 422', async (_what, url, reason) => {
    const response = await register(url);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({
      code: 'blocked-address',
      detail: `notificationUrl must reach a public address: ${reason}`,
    });
    expect(await h.database.db.kysely.selectFrom('subscriptions').select('id').execute()).toEqual([]);
  });

  it.each([
    [
      'userinfo',
      'https://user:pass@hooks.shop.example/h',
      'notificationUrl must not contain credentials (user:password@); verify the x-hook-signature header instead',
    ],
    ['ftp', 'ftp://hooks.shop.example/h', 'notificationUrl must use http or https, not ftp'],
    ['file', 'file:///etc/passwd', 'notificationUrl must use http or https, not file'],
    ['gopher', 'gopher://hooks.shop.example/', 'notificationUrl must use http or https, not gopher'],
    ['javascript', 'javascript:alert(1)', 'notificationUrl must use http or https, not javascript'],
  ])('registration refuses %s with 400', async (_what, url, detail) => {
    const response = await register(url);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'validation-failed', detail });
    expect(await h.database.db.kysely.selectFrom('subscriptions').select('id').execute()).toEqual([]);
  });

  it('at connect time: a name that resolved publicly at registration and privately at delivery is never dialled', async () => {
    expect((await register('https://hooks.shop.example/h')).statusCode).toBe(201);
    dns['hooks.shop.example'] = ['127.0.0.1'];
    await emit(h.database.db, h.clock.now());
    expect(await deliverOnce(h)).toBe(1);
    const attempts = await attemptRows(h.database.db);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status_code: null, error_class: 'blocked' });
    expect(attempts[0]?.error_message).toContain('127.0.0.1');
  });
});

describeEachEngine('SSRF: redirects are not followed', (engine) => {
  const h = useHarness(engine, {
    create: (e) => securityHarness(e, { webhookAllowPrivate: true, webhookRetryScheduleSeconds: [60] }),
  });
  let receiver: Receiver;
  beforeEach(async () => {
    // Private receivers allowed only so the test receiver on 127.0.0.1 can be reached at all.
    h.clock.set(Date.now());
    receiver = await startReceiver(() => ({
      status: 302,
      headers: { location: 'http://169.254.169.254/latest/meta-data' },
    }));
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('a 302 to the metadata address is a failed attempt, and the Location is never requested', async () => {
    const shop = await client(h);
    await addSubscription(h.database.db, shop.id, receiver.url, h.clock.now());
    await emit(h.database.db, h.clock.now());
    expect(await deliverOnce(h)).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const attempts = await attemptRows(h.database.db);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status_code: 302, error_class: 'http' });
    const delivery = await h.database.db.kysely.selectFrom('deliveries').select('status').executeTakeFirstOrThrow();
    expect(delivery.status).not.toBe('succeeded');
  });
});

describeEachEngine('cross-client access', (engine) => {
  // One instance for the block: each test has an owner and an intruder of its own, and no subscription before its owner's.
  const h = useSharedHarness(engine, {
    create: (e) => securityHarness(e, { webhookAllowPrivate: true }),
    reset: emptyTables('subscriptions'),
  });
  let owner: Client;
  let intruder: Client;
  let subscriptionId: string;
  beforeEach(async () => {
    owner = await client(h, 'Owner');
    intruder = await client(h, 'Intruder');
    subscriptionId = await addSubscription(h.database.db, owner.id, 'http://127.0.0.1:9/h', h.clock.now());
    await emit(h.database.db, h.clock.now());
  });

  it.each([
    ['GET', ''],
    ['DELETE', ''],
    ['POST', '/enable'],
    ['POST', '/ping'],
    ['GET', '/deliveries'],
  ] as const)('%s a subscription%s of another client is a 404, and changes nothing', async (method, suffix) => {
    const before = await h.database.db.kysely.selectFrom('subscriptions').selectAll().execute();
    const deliveriesBefore = await h.database.db.kysely.selectFrom('deliveries').selectAll().execute();
    const response = await h.as(intruder).request(method, `/api/lml/v1/subscriptions/${subscriptionId}${suffix}`);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not-found' });
    expect(await h.database.db.kysely.selectFrom('subscriptions').selectAll().execute()).toEqual(before);
    expect(await h.database.db.kysely.selectFrom('deliveries').selectAll().execute()).toEqual(deliveriesBefore);
    // The owner sees it (control).
    if (method === 'GET')
      expect(
        (await h.as(owner).request(method, `/api/lml/v1/subscriptions/${subscriptionId}${suffix}`)).statusCode,
      ).toBe(200);
  });

  it("a client's list shows only its own subscriptions", async () => {
    const mine = await h.as(intruder).get('/api/lml/v1/subscriptions');
    expect(mine.json<{ data: unknown[] }>().data).toEqual([]);
  });
});

/**
 * Every route group that takes its own credential. The portal (another issue) adds its group here;
 * each group's routes come from the running app's route table, so a new route is covered by itself.
 */
const GUARDED_GROUPS: { name: string; prefix: string; wrongCredentials: Record<string, string>[] }[] = [
  {
    name: 'admin API',
    prefix: '/api/admin/v1/',
    wrongCredentials: [
      {},
      { authorization: 'Bearer wrong-admin-token-0000000000' },
      { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
      { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` },
    ],
  },
];

describeEachEngine('credential-guarded route groups', (engine) => {
  const h = useHarness(engine, { create: securityHarness });
  let shop: Client;
  beforeEach(async () => {
    shop = await client(h);
  });

  for (const group of GUARDED_GROUPS) {
    it(`every ${group.name} route refuses a missing or wrong credential (and a client's bearer token) with 401 and changes nothing`, async () => {
      const spec = (await h.anonymous().get('/openapi.json')).json<{
        paths: Record<string, Record<string, unknown>>;
      }>();
      const routes = Object.entries(spec.paths)
        .filter(([path]) => path.startsWith(group.prefix))
        .flatMap(([path, methods]) =>
          Object.keys(methods).map((method) => ({
            method: method.toUpperCase() as 'GET' | 'POST' | 'PATCH' | 'DELETE',
            url: path.replace(/\{[^}]+\}/g, 'x1'),
          })),
        );
      expect(routes.length).toBeGreaterThan(10);
      const before = await h.database.db.kysely.selectFrom('clients').selectAll().execute();
      for (const route of routes) {
        for (const headers of [...group.wrongCredentials, shop.bearer]) {
          const response = await h.app.inject({
            ...route,
            headers: { ...headers, 'content-type': 'application/json' },
            payload: '{}',
          });
          expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
          expect(response.json()).toMatchObject({ code: 'unauthenticated' });
        }
      }
      expect(await h.database.db.kysely.selectFrom('clients').selectAll().execute()).toEqual(before);
    });
  }
});

describeEachEngine('partner portal sessions', (engine) => {
  const h = useHarness(engine, { create: securityHarness });

  it('every portal API route refuses a missing or forged session, an admin token or a bearer token with 401; the sign-in link works once and never reaches a log line', async () => {
    const shop = await client(h);
    const issued = await h.asAdmin().post(`/api/admin/v1/clients/${shop.id}/portal-link`);
    expect(issued.statusCode).toBe(201);
    const token = issued.json<{ path: string }>().path.split('#')[1] ?? '';
    rememberSecrets(token);
    const signIn = await h.anonymous().post('/portal/api/sign-in', { token });
    expect(signIn.statusCode).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0] ?? '';
    const csrf = signIn.json<{ csrfToken: string }>().csrfToken;
    rememberSecrets(cookie.split('=')[1], csrf);
    // Used once: the same link is refused.
    expect((await h.anonymous().post('/portal/api/sign-in', { token })).statusCode).toBe(401);

    // sign-in takes a link, and GET session answers {signedIn:false} to anyone without a session.
    const routes = routeCatalog(h.app).filter(
      (route) =>
        route.url.startsWith('/portal/api/') && !['/portal/api/sign-in', '/portal/api/session'].includes(route.url),
    );
    expect(routes.length).toBeGreaterThan(8);
    const forged = `${cookie.split('=')[0] ?? 'session'}=forged-${'x'.repeat(40)}`;
    for (const route of routes) {
      const call = {
        method: route.method as 'GET' | 'POST' | 'PATCH' | 'DELETE',
        url: route.url.replace(/:[a-zA-Z]+/g, 'x1'),
      };
      for (const headers of [
        {},
        { cookie: forged, 'x-csrf-token': csrf },
        { authorization: `Bearer ${ADMIN_TOKEN}` },
        shop.bearer,
      ]) {
        const response = await h.app.inject({
          ...call,
          headers: { ...headers, 'content-type': 'application/json' },
          payload: '{}',
        });
        expect(response.statusCode, `${call.method} ${call.url}`).toBe(401);
      }
    }
    // Signed out, the old cookie is worth nothing.
    expect(
      (await h.anonymous().post('/portal/api/sign-out', undefined, { headers: { cookie, 'x-csrf-token': csrf } }))
        .statusCode,
    ).toBeLessThan(300);
    const after = await h.anonymous().get('/portal/api/session', { headers: { cookie } });
    expect(after.json()).toEqual({ signedIn: false });
    expect((await h.anonymous().get('/portal/api/subscriptions', { headers: { cookie } })).statusCode).toBe(401);
  });
});

describe('console sign-in brute force', () => {
  it('after the allowed failures from one address the console sign-in answers 429 + Retry-After, even for the right token', async () => {
    const h = await securityHarness('sqlite', { authFailuresPerClientAddress: 3, authFailuresPerAddress: 50 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await h
          .anonymous()
          .post('/dashboard/api/session', { token: `wrong-admin-token-${i}-0000000000` });
        statuses.push(response.statusCode);
        if (response.statusCode === 429) expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      expect((await h.anonymous().post('/dashboard/api/session', { token: ADMIN_TOKEN })).statusCode).toBe(429);
      // Once the window has passed, the operator signs in.
      h.clock.advance(601_000);
      expect((await h.anonymous().post('/dashboard/api/session', { token: ADMIN_TOKEN })).statusCode).toBe(200);
    } finally {
      await h.close();
    }
  });
});

describe('brute force over a real socket', () => {
  const h = useHarness('sqlite', {
    create: (e) => securityHarness(e, { authFailuresPerClientAddress: 5, authFailuresPerAddress: 50 }),
  });
  let base: string;
  beforeEach(async () => {
    base = await h.listen();
  });

  it('stops a guesser after the allowed failures with 429 + Retry-After; wrong secrets never authenticate', async () => {
    const shop = await client(h);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const response = await fetch(`${base}/api/auth/token`, {
        headers: { authorization: basic(shop.clientId, `guess-${i}`) },
      });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
  });
});

describe('security headers on every HTML page', () => {
  const h = useHarness('sqlite', { create: securityHarness });

  it('the dashboard, the API reference and every problem page carry CSP, nosniff, frame and referrer policies', async () => {
    const spec = (await h.anonymous().get('/openapi.json')).json<{
      paths: Record<string, unknown>;
    }>();
    expect(Object.keys(spec.paths)).toContain('/problems/{code}');
    const pages = [
      '/dashboard',
      '/docs',
      '/docs/',
      '/docs/static/index.html',
      '/problems/not-found',
      '/problems/rate-limited',
      '/problems/subscription-limit',
    ];
    const html: string[] = [];
    for (const url of pages) {
      const response = await h.anonymous().get(url, { headers: { accept: 'text/html' } });
      // Redirects (e.g. /docs → /docs/) carry no page; every page that is HTML is checked.
      if (!String(response.headers['content-type']).startsWith('text/html')) continue;
      html.push(url);
      const csp = String(response.headers['content-security-policy']);
      expect(csp, url).toMatch(/default-src '(none|self)'/);
      expect(csp, url).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      expect(response.headers['x-frame-options'] ?? response.headers['content-security-policy'], url).toEqual(
        expect.stringMatching(/DENY|frame-ancestors 'none'/),
      );
      expect(response.headers['referrer-policy'], url).toBe('no-referrer');
    }
    expect(html).toEqual(
      expect.arrayContaining([
        '/dashboard',
        '/problems/not-found',
        '/problems/rate-limited',
        '/problems/subscription-limit',
      ]),
    );
  });
});

describe('secrets in query strings stay out of the access log', () => {
  it('logs the path and the query with secret-looking values replaced by [redacted]', async () => {
    const h = await securityHarness('sqlite', { logRequests: 'all' });
    const sent = ['sms_query_client_secret_0001', 'query_code_value_0002', 'query_sig_value_0003'];
    rememberSecrets(...sent);
    const from = capturedLogLines.length;
    try {
      const url =
        `/api/admin/v1/clients?access_token=${ADMIN_TOKEN}&limit=1&client_secret=${sent[0]}` +
        `&code=${sent[1]}&sig=${sent[2]}&token=${ADMIN_TOKEN}&api-key=${ADMIN_TOKEN}&keyword=books`;
      await h.anonymous().get(url);
      await h.anonymous().get(`/no/such/route?password=${ADMIN_TOKEN}`);
    } finally {
      await h.close();
    }
    const lines = capturedLogLines.slice(from).filter((line) => line.includes('/api/admin/v1/clients?'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const { url } = JSON.parse(line) as { url?: string };
      if (url === undefined) continue;
      expect(url).toBe(
        '/api/admin/v1/clients?access_token=[redacted]&limit=1&client_secret=[redacted]' +
          '&code=[redacted]&sig=[redacted]&token=[redacted]&api-key=[redacted]&keyword=books',
      );
    }
    // The suite's final check (afterAll) also finds none of these values in any captured line.
    expect(capturedLogLines.slice(from).filter((line) => line.includes(ADMIN_TOKEN))).toEqual([]);
  });
});

afterAll(() => {
  // Over the whole suite: secrets were handled, lines were written, and no line contains a secret.
  expect(secretsSeen.size).toBeGreaterThan(10);
  expect(capturedLogLines.length).toBeGreaterThan(100);
  const leaks = capturedLogLines.filter((line) => [...secretsSeen].some((secret) => line.includes(secret)));
  expect(leaks.map((line) => line.slice(0, 300))).toEqual([]);
});
