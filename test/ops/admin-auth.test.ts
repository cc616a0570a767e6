import { afterAll, beforeAll, expect, it } from 'vitest';
import { routeCatalog } from '../../src/observability/instrument.js';
import { describeEachEngine } from '../support/engines.js';
import { createHarness, type Harness } from '../support/harness.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const isMethod = (method: string): method is Method => METHODS.includes(method);

/** A concrete URL for a route pattern: every `:param` becomes a plausible but unknown value. */
const concrete = (pattern: string): string => pattern.replace(/:[A-Za-z0-9_]+/g, '0123456789abcdef0123456789abcdef');

const STACK = /\bat [^\n]+\.(ts|js):\d+|node_modules|Error: .*\n\s+at /;

describeEachEngine('admin API authentication and the HTTP edge', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => h.close());

  const adminRoutes = (): { method: Method; url: string }[] =>
    routeCatalog(h.app)
      .filter((route) => route.url.startsWith('/api/admin/v1/'))
      .flatMap((route) => (isMethod(route.method) ? [{ method: route.method, url: route.url }] : []));

  it('the catalogue finds the admin routes (at least the client routes)', () => {
    const urls = adminRoutes().map((route) => `${route.method} ${route.url}`);
    expect(urls).toContain('POST /api/admin/v1/clients');
    expect(urls).toContain('DELETE /api/admin/v1/clients/:id');
  });

  it('every admin route answers 401 problem without a token, with a wrong token and with a non-Bearer scheme', async () => {
    const credentials: (string | undefined)[] = [
      undefined,
      'Bearer wrong-token-0123456789',
      'Basic YWRtaW46YWRtaW4=',
      'Bearer ',
    ];
    const failures: string[] = [];
    for (const route of adminRoutes()) {
      for (const authorization of credentials) {
        const hasBody = route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT';
        const response = await h.app.inject({
          method: route.method,
          url: concrete(route.url),
          headers: authorization === undefined ? {} : { authorization },
          // An invalid body must not reach validation before authentication (no schema oracle).
          ...(hasBody ? { payload: { unexpected: true } } : {}),
        });
        const body = String(response.headers['content-type']).startsWith('application/problem+json')
          ? response.json<{ code?: string; status?: number }>()
          : undefined;
        if (response.statusCode !== 401 || body?.code !== 'unauthenticated' || body.status !== 401) {
          failures.push(
            `${route.method} ${route.url} [${authorization ?? 'none'}] → ${response.statusCode} ${response.body.slice(0, 120)}`,
          );
        }
        if (response.statusCode === 401) expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    }
    expect(failures).toEqual([]);
  });

  it('the admin token opens the admin API', async () => {
    const response = await h.asAdmin().get('/api/admin/v1/clients');
    expect(response.statusCode).toBe(200);
  });

  it('/healthz answers ok', async () => {
    const response = await h.anonymous().get('/healthz');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('/readyz answers 200 while the database is up and the offers are in memory', async () => {
    const response = await h.anonymous().get('/readyz');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', database: 'up', offers: 'warm' });
  });

  it('/metrics exposes the request histogram after a request', async () => {
    await h.anonymous().get('/healthz');
    const response = await h.anonymous().get('/metrics');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toContain('shelfmark_http_request_duration_seconds');
    expect(response.body).toMatch(
      /shelfmark_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} \d+/,
    );
  });

  it('an unknown route is a 404 problem', async () => {
    const response = await h.anonymous().get('/no/such/thing?x=1');
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({
      type: '/problems/route-not-found',
      status: 404,
      code: 'route-not-found',
      detail: 'GET /no/such/thing does not exist',
    });
  });

  /** An admin POST of a raw body in a content type of the test's choosing: the body's transport is what is tested. */
  const postClients = (contentType: string, payload: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/admin/v1/clients',
      headers: { ...h.admin, 'content-type': contentType },
      payload,
    });

  it('malformed JSON to an admin POST is 400 malformed-body', async () => {
    const response = await postClients('application/json', '{"name": "Shop",');
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'malformed-body', status: 400, type: '/problems/malformed-body' });
  });

  it('a body over 256 KiB is 413 body-too-large', async () => {
    const response = await postClients('application/json', JSON.stringify({ name: 'x'.repeat(257 * 1024) }));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: 'body-too-large', status: 413 });
  });

  it('a body of the wrong content type is 415', async () => {
    const response = await postClients('text/xml', '<client><name>Shop</name></client>');
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ code: 'unsupported-media-type', status: 415 });
  });

  it('echoes a well-formed x-request-id as header and problem instance, and replaces a hostile one', async () => {
    const echoed = await h.anonymous().get('/nowhere', { headers: { 'x-request-id': 'req-42.abc' } });
    expect(echoed.headers['x-request-id']).toBe('req-42.abc');
    expect(echoed.json().instance).toBe('req-42.abc');
    const hostile = await h.anonymous().get('/healthz', { headers: { 'x-request-id': 'bad id <script>' } });
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('no error response carries a stack trace or internal path', async () => {
    const probes = [
      h.anonymous().get('/nowhere'),
      postClients('application/json', '{'),
      postClients('application/json', ''),
      h.asAdmin().post('/api/admin/v1/clients', { name: { first: 'x' } }),
      postClients('application/x-yaml', 'a: 1'),
      h.asAdmin().get('/api/admin/v1/clients/unknown'),
      h.anonymous().get('/api/v1/offers', { headers: { authorization: 'Bearer not.a.jwt' } }),
      h.anonymous().get('/problems/nope'),
    ];
    for (const response of await Promise.all(probes)) {
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.body).not.toMatch(STACK);
      expect(response.body).not.toContain('"stack"');
    }
  });

  it('/readyz answers 503 once the database is gone', async () => {
    // Last in this block: it closes the database (closing twice in teardown is harmless).
    await h.database.db.close();
    const response = await h.anonymous().get('/readyz');
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ status: 'unavailable', database: 'down', offers: 'warm' });
    expect((await h.anonymous().get('/healthz')).statusCode).toBe(200);
    // A failing database is an internal error: generic body, request id to quote, no stack or SQL.
    const failing = await h.asAdmin().get('/api/admin/v1/clients');
    expect(failing.statusCode).toBeGreaterThanOrEqual(500);
    expect(failing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(failing.body).not.toMatch(STACK);
    expect(failing.body).not.toMatch(/select|sqlite|pool|destroy/i);
    expect(failing.json().instance).toBe(failing.headers['x-request-id']);
  });
});
