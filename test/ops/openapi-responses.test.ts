/**
 * Real answers of every documented route, checked against the OpenAPI document: the status is
 * documented for that operation, the content type is one it documents, and the body validates
 * against the documented schema (JSON Schema 2020-12, as OpenAPI 3.1 says). A route added later
 * without a call here fails the coverage check at the end.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routeCatalog } from '../../src/observability/instrument.js';
import { addFailedDelivery } from '../delivery/support.js';
import { createDnsHarness } from '../subscriptions/support.js';
import { describeEachEngine } from '../support/engines.js';
import { basic, createClientWithToken, type Harness } from '../support/harness.js';

type Schema = Record<string, unknown>;
interface ResponseSpec {
  description: string;
  content?: Record<string, { schema?: Schema }>;
}
interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, ResponseSpec> }>>;
  components: Schema;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const MATH = '9789001891442';
const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describeEachEngine('real responses match the OpenAPI document', (engine) => {
  let h: Harness;
  let doc: Doc;
  let ajv: Ajv2020;
  const exercised = new Map<string, Set<number>>();
  const failures: string[] = [];

  beforeAll(async () => {
    h = await createDnsHarness(engine);
    doc = (await h.anonymous().get('/openapi.json')).json<Doc>();
    ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));
    ajv.addSchema({ $id: 'openapi', components: doc.components });
  });
  afterAll(async () => h.close());

  const compiled = new Map<string, ReturnType<Ajv2020['compile']>>();
  const validatorFor = (key: string, schema: Schema) => {
    let validate = compiled.get(key);
    if (validate === undefined) {
      const rewritten = JSON.parse(
        JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'),
      ) as Schema;
      validate = ajv.compile(rewritten);
      compiled.set(key, validate);
    }
    return validate;
  };

  /** Checks one answer against the document and records the route as exercised. */
  const check = (method: string, route: string, response: LightMyRequestResponse): LightMyRequestResponse => {
    const where = `${method} ${route} → ${response.statusCode}`;
    const operation = doc.paths[openApiPath(route)]?.[method.toLowerCase()];
    if (operation === undefined) {
      failures.push(`${where}: operation not documented`);
      return response;
    }
    const status = String(response.statusCode);
    const spec = operation.responses[status] ?? operation.responses[`${status[0]}XX`] ?? operation.responses.default;
    const seen = exercised.get(`${method} ${route}`) ?? new Set<number>();
    seen.add(response.statusCode);
    exercised.set(`${method} ${route}`, seen);
    if (spec === undefined) {
      failures.push(`${where}: status not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
      return response;
    }
    if (response.statusCode === 204 || response.statusCode === 304) {
      if (response.body !== '') failures.push(`${where}: body on a ${status}`);
      return response;
    }
    const type = String(response.headers['content-type'] ?? '').split(';')[0] ?? '';
    const content = spec.content?.[type];
    if (content === undefined) {
      failures.push(
        `${where}: content type ${type} not documented (${Object.keys(spec.content ?? {}).join(', ') || 'none'})`,
      );
      return response;
    }
    if (type.endsWith('json') && content.schema !== undefined) {
      const validate = validatorFor(`${method} ${route} ${status} ${type}`, content.schema);
      if (!validate(JSON.parse(response.body)))
        failures.push(`${where}: ${ajv.errorsText(validate.errors)} in ${response.body.slice(0, 300)}`);
    }
    return response;
  };

  it('every route, successes and errors', async () => {
    const client = await createClientWithToken(h, 'Validator shop');
    const bearer = client.bearer;
    const admin = h.admin;
    const call = async (
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      route: string,
      params: Record<string, string | number>,
      options: { query?: string; headers?: Record<string, string>; payload?: unknown } = {},
    ) => {
      const path = route.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeURIComponent(String(params[name])));
      const response = await h.app.inject({
        method,
        url: `${path}${options.query === undefined ? '' : `?${options.query}`}`,
        headers: options.headers ?? {},
        ...(options.payload === undefined ? {} : { payload: options.payload as string }),
      });
      return check(method, route, response);
    };

    // operations
    await call('GET', '/healthz', {});
    await call('GET', '/readyz', {});
    await call('GET', '/metrics', {});
    await call('GET', '/problems/:code', { code: 'conflict' });
    await call('GET', '/problems/:code', { code: 'nope' });

    // auth
    await call(
      'GET',
      '/api/auth/token',
      {},
      { headers: { authorization: basic(client.clientId, client.clientSecret) } },
    );
    await call('GET', '/api/auth/token', {});
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    await call(
      'POST',
      '/api/auth/token',
      {},
      {
        headers: form,
        payload: `grant_type=client_credentials&client_id=${client.clientId}&client_secret=${client.clientSecret}`,
      },
    );
    await call('POST', '/api/auth/token', {}, { headers: form, payload: 'grant_type=password' });
    await call(
      'POST',
      '/api/auth/token',
      {},
      {
        headers: { ...form, authorization: basic(client.clientId, 'wrong') },
        payload: 'grant_type=client_credentials',
      },
    );
    await call('POST', '/api/auth/token', {}, { headers: { 'content-type': 'application/json' }, payload: 'null' });
    await call('GET', '/.well-known/jwks.json', {});
    await call('GET', '/.well-known/oauth-authorization-server', {});

    // admin offers and public offers
    const offer = (
      await call(
        'POST',
        '/api/admin/v1/offers',
        {},
        { headers: admin, payload: { ean: MATH, price: 12.5, condition: 'good', remarks: 'Fine' } },
      )
    ).json<{ id: number }>();
    await call(
      'POST',
      '/api/admin/v1/offers',
      {},
      { headers: admin, payload: { ean: '123', price: 1, condition: 'good' } },
    );
    await call(
      'POST',
      '/api/admin/v1/offers',
      {},
      { headers: { ...admin, 'content-type': 'text/plain' }, payload: 'hello' },
    );
    await call(
      'POST',
      '/api/admin/v1/offers',
      {},
      {
        headers: { ...admin, 'content-type': 'application/json' },
        payload: JSON.stringify({ ean: MATH, price: 1, condition: 'good', remarks: 'x'.repeat(300 * 1024) }),
      },
    );
    await call(
      'POST',
      '/api/admin/v1/offers',
      {},
      { headers: { ...admin, 'idempotency-key': 'k1' }, payload: { ean: MATH, price: 13, condition: 'good' } },
    );
    await call(
      'POST',
      '/api/admin/v1/offers',
      {},
      { headers: { ...admin, 'idempotency-key': 'k1' }, payload: { ean: MATH, price: 13, condition: 'good' } },
    );
    await call(
      'POST',
      '/api/admin/v1/offers',
      {},
      { headers: { ...admin, 'idempotency-key': 'k1' }, payload: { ean: MATH, price: 14, condition: 'good' } },
    );
    await call('POST', '/api/admin/v1/offers', {}, { payload: { ean: MATH, price: 13, condition: 'good' } });
    await call('GET', '/api/admin/v1/offers', {}, { headers: admin, query: 'limit=1' });
    await call('GET', '/api/admin/v1/offers/:id', { id: offer.id }, { headers: admin });
    await call('GET', '/api/admin/v1/offers/:id', { id: 999999 }, { headers: admin });
    await call('PATCH', '/api/admin/v1/offers/:id', { id: offer.id }, { headers: admin, payload: { price: 11 } });
    const offers = await call('GET', '/api/v1/offers', {}, { headers: bearer, query: `eans=${MATH}` });
    await call(
      'GET',
      '/api/v1/offers',
      {},
      { headers: { ...bearer, 'if-none-match': String(offers.headers.etag) }, query: `eans=${MATH}` },
    );
    await call('GET', '/api/v1/offers', {}, { headers: bearer, query: 'eans=123' });
    await call('GET', '/api/v1/offers', {}, { query: `eans=${MATH}` });
    await call('GET', '/api/v1/offers/:id', { id: offer.id }, { headers: bearer });
    await call('GET', '/api/v1/offers/:id', { id: 'nope' }, { headers: bearer });

    // admin LML
    const school = (
      await call(
        'POST',
        '/api/admin/v1/schools',
        {},
        { headers: admin, payload: { name: 'Het Lyceum', type: 'VO', location: 'Delft', brin: '12AB' } },
      )
    ).json<{ identifier: string }>();
    await call('GET', '/api/admin/v1/schools', {}, { headers: admin });
    await call('GET', '/api/admin/v1/schools/:identifier', { identifier: school.identifier }, { headers: admin });
    await call(
      'PATCH',
      '/api/admin/v1/schools/:identifier',
      { identifier: school.identifier },
      { headers: admin, payload: { location: 'Leiden' } },
    );
    const list = (
      await call(
        'POST',
        '/api/admin/v1/lists',
        {},
        {
          headers: admin,
          payload: {
            school: school.identifier,
            name: 'Klas 1',
            schoolYear: 2026,
            tags: ['Delft', '2026-2027'],
            items: [{ ean: MATH, title: 'Wiskunde' }],
          },
        },
      )
    ).json<{ identifier: string }>();
    await call(
      'POST',
      '/api/admin/v1/lists',
      {},
      { headers: admin, payload: { school: school.identifier, name: 'Bad', items: [{ ean: '123', title: 'X' }] } },
    );
    await call('GET', '/api/admin/v1/lists', {}, { headers: admin });
    await call('GET', '/api/admin/v1/lists/:identifier', { identifier: list.identifier }, { headers: admin });
    await call(
      'PATCH',
      '/api/admin/v1/lists/:identifier',
      { identifier: list.identifier },
      { headers: admin, payload: { comment: 'Bring a calculator' } },
    );
    // the priced list
    await call('GET', '/api/v1/lists/:identifier/offers', { identifier: list.identifier }, { headers: bearer });
    await call(
      'GET',
      '/api/v1/lists/:identifier/offers',
      { identifier: list.identifier },
      { headers: bearer, query: 'condition=good&limit=1' },
    );
    await call('GET', '/api/v1/lists/:identifier/offers', { identifier: 'f'.repeat(32) }, { headers: bearer });
    await call(
      'GET',
      '/api/v1/lists/:identifier/offers',
      { identifier: list.identifier },
      { headers: bearer, query: 'limit=0' },
    );
    await call(
      'POST',
      '/api/admin/v1/lists/:identifier/status',
      { identifier: list.identifier },
      { headers: admin, payload: { status: 'archived' } },
    );
    await call(
      'POST',
      '/api/admin/v1/lists/:identifier/status',
      { identifier: list.identifier },
      { headers: admin, payload: { status: 'validated' } },
    );

    // public LML
    await call('GET', '/api/lml/v1/schools', {}, { headers: bearer, query: '_=1' });
    await call('GET', '/api/lml/v1/schools/:identifier', { identifier: school.identifier }, { headers: bearer });
    await call('GET', '/api/lml/v1/schools/:identifier', { identifier: 'f'.repeat(32) }, { headers: bearer });
    await call('GET', '/api/lml/v1/lists', {}, { headers: bearer, query: 'limit=5' });
    await call('GET', '/api/lml/v1/lists/:identifier', { identifier: list.identifier }, { headers: bearer });
    await call('GET', '/api/lml/v1/structure', {}, { headers: bearer });
    await call('GET', '/api/lml/v1/structure', {}, { headers: bearer, query: `parent=${school.identifier}` });
    await call('GET', '/api/lml/v1/schools', {}, { headers: { authorization: 'Bearer garbage' } });

    // subscriptions and deliveries (client)
    const subscription = (
      await call(
        'POST',
        '/api/lml/v1/subscriptions',
        {},
        { headers: bearer, payload: { notificationUrl: 'https://hooks.shop.example/in', event: 'list-published' } },
      )
    ).json<{ id: string }>();
    await call(
      'POST',
      '/api/lml/v1/subscriptions',
      {},
      { headers: bearer, payload: { notificationUrl: 'https://metadata.example/in', event: 'list-published' } },
    );
    await call(
      'POST',
      '/api/lml/v1/subscriptions',
      {},
      { headers: bearer, payload: { notificationUrl: 'https://hooks.shop.example/in', event: 'list-published' } },
    );
    await call('GET', '/api/lml/v1/subscriptions', {}, { headers: bearer });
    await call('GET', '/api/lml/v1/subscriptions/:id', { id: subscription.id }, { headers: bearer });
    await call('POST', '/api/lml/v1/subscriptions/:id/enable', { id: subscription.id }, { headers: bearer });
    // A ping is sent at once: pointed at loopback (port 9), which the SSRF guard refuses, it never leaves the host.
    await h.database.db.kysely
      .updateTable('subscriptions')
      .set({ notification_url: 'http://127.0.0.1:9/in' })
      .where('id', '=', subscription.id)
      .execute();
    await call('POST', '/api/lml/v1/subscriptions/:id/ping', { id: subscription.id }, { headers: bearer });
    await call('GET', '/api/lml/v1/subscriptions/:id/deliveries', { id: subscription.id }, { headers: bearer });
    // The event feed: a page, a malformed cursor (400), a type filter.
    await call('GET', '/api/lml/v1/events', {}, { headers: bearer, query: 'limit=5' });
    await call('GET', '/api/lml/v1/events', {}, { headers: bearer, query: 'after=not-a-cursor' });
    await call('GET', '/api/lml/v1/events', {}, { headers: bearer, query: 'types=list.published' });
    // Replay into the client's subscription, and a malformed start.
    const since = { from: '2026-08-01T00:00:00Z' };
    await call(
      'POST',
      '/api/lml/v1/subscriptions/:id/replay',
      { id: subscription.id },
      { headers: bearer, payload: since },
    );
    await call(
      'POST',
      '/api/lml/v1/subscriptions/:id/replay',
      { id: subscription.id },
      { headers: bearer, payload: { from: 'yesterday' } },
    );
    await call(
      'POST',
      '/api/admin/v1/subscriptions/:id/replay',
      { id: subscription.id },
      { headers: admin, payload: since },
    );
    await call('POST', '/api/lml/v1/webhook-secret', {}, { headers: bearer });

    // admin subscriptions, deliveries, clients
    await call('GET', '/api/admin/v1/subscriptions', {}, { headers: admin });
    await call('GET', '/api/admin/v1/subscriptions/:id', { id: subscription.id }, { headers: admin });
    await call('POST', '/api/admin/v1/subscriptions/:id/enable', { id: subscription.id }, { headers: admin });
    await call(
      'POST',
      '/api/admin/v1/subscriptions/:id/recover',
      { id: subscription.id },
      { headers: admin, payload: { since: '2026-09-01T00:00:00Z' } },
    );
    await call('POST', '/api/admin/v1/subscriptions/:id/recover-failed', { id: subscription.id }, { headers: admin });
    const forClient = {
      clientId: client.clientId,
      notificationUrl: 'https://hooks.shop.example/admin',
      event: 'list.published',
    };
    await call('POST', '/api/admin/v1/subscriptions', {}, { headers: admin, payload: forClient });
    await call('POST', '/api/admin/v1/subscriptions', {}, { headers: admin, payload: forClient });
    await call(
      'POST',
      '/api/admin/v1/subscriptions',
      {},
      { headers: admin, payload: { ...forClient, clientId: 'smc_missing' } },
    );
    // One event's delivery that failed, as the worker leaves it (the worker does not run here).
    await addFailedDelivery(h.database.db, subscription.id, h.clock.now());
    const deliveries = (await call('GET', '/api/admin/v1/deliveries', {}, { headers: admin })).json<{
      data: { id: string; event: string }[];
    }>();
    // An event's delivery (a test ping is one attempt: it is never retried).
    const delivery = deliveries.data.find((d) => d.event !== 'ping')?.id ?? 'dlv_missing';
    await call('GET', '/api/admin/v1/deliveries/:id', { id: delivery }, { headers: admin });
    await call('POST', '/api/admin/v1/deliveries/:id/retry', { id: delivery }, { headers: admin });
    // A delivery that exhausted its retries (as the worker would leave it) can be retried: 202.
    await h.database.db.kysely
      .updateTable('deliveries')
      .set({ status: 'failed', completed_at: h.clock.now() })
      .where('id', '=', delivery)
      .execute();
    await call('POST', '/api/admin/v1/deliveries/:id/retry', { id: delivery }, { headers: admin });
    // Due now after the retry: send-now refuses it (409); waiting for its next attempt, it is sent now (202).
    // Sent before the answer: to a loopback port nothing listens on (no traffic may leave the host).
    await call('POST', '/api/admin/v1/deliveries/:id/send-now', { id: delivery }, { headers: admin });
    await h.database.db.kysely
      .updateTable('subscriptions')
      .set({ notification_url: 'http://127.0.0.1:9/in' })
      .where('id', '=', subscription.id)
      .execute();
    await h.database.db.kysely
      .updateTable('deliveries')
      .set({ attempt_count: 1, next_attempt_at: h.clock.now() + 60_000 })
      .where('id', '=', delivery)
      .execute();
    await call('POST', '/api/admin/v1/deliveries/:id/send-now', { id: delivery }, { headers: admin });
    const other = (
      await call(
        'POST',
        '/api/admin/v1/clients',
        {},
        { headers: admin, payload: { name: 'Other shop', scopes: ['offers:read'] } },
      )
    ).json<{ id: string }>();
    await call('GET', '/api/admin/v1/clients', {}, { headers: admin });
    await call('GET', '/api/admin/v1/clients/:id', { id: other.id }, { headers: admin });
    await call('POST', '/api/admin/v1/clients/:id/secret', { id: other.id }, { headers: admin });
    await call('POST', '/api/admin/v1/clients/:id/webhook-secret', { id: other.id }, { headers: admin });
    await call('POST', '/api/admin/v1/clients/:id/portal-link', { id: other.id }, { headers: admin });
    await call('POST', '/api/admin/v1/clients/:id/portal-link', { id: 'cli_missing' }, { headers: admin });
    await call('GET', '/api/admin/v1/overview', {}, { headers: admin });
    await call('GET', '/api/admin/v1/subscription-health', {}, { headers: admin });
    await call('GET', '/api/admin/v1/storage', {}, { headers: admin });
    // The audit log: a page (the changes above are in it) and a refused cursor.
    await call('GET', '/api/admin/v1/audit', {}, { headers: admin });
    await call('GET', '/api/admin/v1/audit', {}, { query: 'starting_after=aud_unknown', headers: admin });
    // Operators: one who signed in through the provider, disabled and enabled; a viewer is refused.
    await h.database.db.kysely
      .insertInto('operators')
      .values({
        issuer: 'https://idp.example',
        sub: 'op-1',
        email: 'op@example.test',
        name: 'Op',
        role: 'support',
        disabled_at: null,
        first_sign_in_at: Date.now(),
        last_sign_in_at: Date.now(),
      })
      .execute();
    await call('GET', '/api/admin/v1/operators', {}, { headers: admin });
    await call('POST', '/api/admin/v1/operators/:sub/disable', { sub: 'op-1' }, { headers: admin });
    await call('POST', '/api/admin/v1/operators/:sub/enable', { sub: 'op-1' }, { headers: admin });
    await call('POST', '/api/admin/v1/operators/:sub/enable', { sub: 'nobody' }, { headers: admin });
    const viewer = await h.services.webSessions.startConsole({
      issuer: 'https://idp.example',
      sub: 'viewer-1',
      email: null,
      name: null,
      role: 'viewer',
    });
    await call(
      'POST',
      '/api/admin/v1/operators/:sub/disable',
      { sub: 'op-1' },
      { headers: { cookie: `shelfmark_console=${viewer.sessionId}`, 'x-csrf-token': viewer.session.csrfToken } },
    );
    await call('GET', '/api/admin/v1/clients', {}, {});

    // deletes last
    await call('DELETE', '/api/lml/v1/subscriptions/:id', { id: subscription.id }, { headers: bearer });
    await call('DELETE', '/api/admin/v1/offers/:id', { id: offer.id }, { headers: admin });
    await call('DELETE', '/api/admin/v1/clients/:id', { id: other.id }, { headers: admin });

    expect(failures).toEqual([]);

    // Coverage: every documented route of the catalogue was answered at least once with a 2xx.
    const documented = routeCatalog(h.app).filter(
      (route) =>
        !route.hidden &&
        route.method !== 'HEAD' &&
        doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()] !== undefined,
    );
    const withoutSuccess = documented
      .filter(
        (route) =>
          ![...(exercised.get(`${route.method} ${route.url}`) ?? [])].some((status) => status >= 200 && status < 300),
      )
      .map(
        (route) =>
          `${route.method} ${route.url}: ${[...(exercised.get(`${route.method} ${route.url}`) ?? [])].join(',') || 'not called'}`,
      );
    expect(withoutSuccess).toEqual([]);
  });
});
