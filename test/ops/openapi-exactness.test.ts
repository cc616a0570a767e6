/**
 * The document is as exact as the server: probes sent to every operation (a URL too long, a path
 * segment over the router's bound or over its parameter's own, a NUL, no credentials) answer only
 * statuses and media types that operation documents; the request schemas state the rules the services
 * check (from the same constants); every create links to the operations its answer feeds.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GRANT_TYPES } from '../../src/auth/token-schemas.js';
import { ACCEPTED_EVENT_SPELLINGS } from '../../src/events/catalogue.js';
import { CURSOR_PATTERN } from '../../src/events/feed-cursor.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../src/idempotency/service.js';
import { MAX_PATH_SEGMENT } from '../../src/limits/http-limits.js';
import { OFFER_ID_PATTERN } from '../../src/offers/model.js';
import { MAX_NOTIFICATION_URL_LENGTH } from '../../src/subscriptions/notification-url.js';
import { EAN_LIST_PATTERN, EAN_PATTERN } from '../../src/vocabulary/ean.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Response {
  content?: Record<string, { schema?: Schema }>;
  links?: Record<string, { operationId: string; parameters: Record<string, string> }>;
}
interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, Response>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const MAX_URL_LENGTH = 1024;

describeEachEngine('the OpenAPI document is as exact as the server', (engine) => {
  let h: Harness;
  let doc: Doc;
  let bearer: Record<string, string>;
  beforeAll(async () => {
    h = await createHarness(engine, { maxUrlLength: MAX_URL_LENGTH });
    doc = (await h.anonymous().get('/openapi.json')).json<Doc>();
    bearer = (await createClientWithToken(h, 'Probe shop', ['offers:read', 'lml:read', 'webhooks:manage'])).bearer;
  });
  afterAll(async () => h.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );
  const byId = (operationId: string) => operations().find(({ operation }) => operation.operationId === operationId);
  const deref = (schema: Schema | undefined): Schema => {
    const ref = schema?.$ref;
    return typeof ref === 'string' ? (doc.components.schemas[ref.split('/').at(-1) ?? ''] ?? {}) : (schema ?? {});
  };
  const bodyOf = (operationId: string, type = 'application/json'): Schema =>
    deref(byId(operationId)?.operation.requestBody?.content[type]?.schema);
  const property = (schema: Schema, name: string): Schema =>
    deref((schema.properties as Record<string, Schema> | undefined)?.[name]);
  const parameter = (operationId: string, name: string): Schema =>
    byId(operationId)?.operation.parameters?.find((p) => p.name === name)?.schema ?? {};
  const exampleOf = (p: Parameter): string => String(p.example ?? Object.values(p.examples ?? {})[0]?.value ?? 'x');

  it('every probe answers a status and media type its operation documents', async () => {
    const failures: string[] = [];
    let probes = 0;
    for (const { path, method, operation } of operations()) {
      const params = (operation.parameters ?? []).filter((p) => p.in === 'path');
      const urlWith = (values: Record<string, string>) =>
        path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? ''));
      const examples = Object.fromEntries(params.map((p) => [p.name, exampleOf(p)]));
      const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
      const credentials = schemes.includes('admin') ? h.admin : schemes.includes('bearer') ? bearer : {};
      const probe = async (what: string, url: string, headers: Record<string, string>) => {
        probes++;
        const response: LightMyRequestResponse = await h.app.inject({
          method: method.toUpperCase() as 'GET',
          url,
          headers,
        });
        const status = String(response.statusCode);
        const documented =
          operation.responses[status] ?? operation.responses[`${status[0]}XX`] ?? operation.responses.default;
        const where = `${method.toUpperCase()} ${path} (${what}) → ${status}`;
        if (documented === undefined) {
          failures.push(`${where}: not documented (${Object.keys(operation.responses).join(', ')})`);
          return;
        }
        const type = String(response.headers['content-type'] ?? '').split(';')[0] ?? '';
        if (response.body !== '' && documented.content?.[type] === undefined)
          failures.push(`${where}: ${type} not documented (${Object.keys(documented.content ?? {}).join(', ')})`);
      };
      const base = urlWith(examples);
      await probe('URL too long', `${base}?pad=${'p'.repeat(MAX_URL_LENGTH)}`, credentials);
      await probe('NUL in the URL', `${base}?x=%00`, credentials);
      if (schemes.length > 0) await probe('no credentials', base, {});
      for (const p of params) {
        await probe(
          `${p.name} over the router's bound`,
          urlWith({ ...examples, [p.name]: 'x'.repeat(MAX_PATH_SEGMENT + 1) }),
          credentials,
        );
        const maxLength = typeof p.schema.maxLength === 'number' ? p.schema.maxLength : MAX_PATH_SEGMENT;
        if (maxLength < MAX_PATH_SEGMENT)
          await probe(
            `${p.name} over its own bound`,
            urlWith({ ...examples, [p.name]: 'x'.repeat(maxLength + 1) }),
            credentials,
          );
      }
    }
    expect(failures).toEqual([]);
    expect(probes).toBeGreaterThan(200);
  });

  it('every operation documents 414 and 431, and every problem it answers before it runs', () => {
    const missing = operations()
      .filter(({ operation }) => operation.operationId !== 'createToken' && operation.operationId !== 'getToken')
      .filter(({ operation }) => operation.responses['414'] === undefined || operation.responses['431'] === undefined)
      .map(({ path, method }) => `${method} ${path}`);
    expect(missing).toEqual([]);
    expect(byId('getStructure')?.operation.responses['404']).toBeDefined();
    expect(Object.keys(byId('adminListAudit')?.operation.responses['200']?.content ?? {}).sort()).toEqual([
      'application/json',
      'application/x-ndjson',
    ]);
  });

  it('every path parameter is bounded by what the server accepts', () => {
    const loose = operations().flatMap(({ path, method, operation }) =>
      (operation.parameters ?? [])
        .filter((p) => p.in === 'path')
        .filter((p) => {
          const bound = p.schema.maxLength;
          return typeof bound !== 'number' || bound > MAX_PATH_SEGMENT;
        })
        .map((p) => `${method} ${path} ${p.name}`),
    );
    expect(loose).toEqual([]);
    // An OIDC sub may be 255 characters; an offer id is what the server parses.
    expect(parameter('adminDisableOperator', 'sub').maxLength).toBe(255);
    expect(parameter('adminUpdateOffer', 'id').pattern).toBe(OFFER_ID_PATTERN);
  });

  it('request schemas state the rules the services check, from the same sources', () => {
    for (const operationId of ['createSubscription', 'adminCreateSubscription']) {
      const body = bodyOf(operationId);
      expect(property(body, 'event').enum, operationId).toEqual([...ACCEPTED_EVENT_SPELLINGS]);
      const url = property(body, 'notificationUrl');
      expect(url, operationId).toMatchObject({ format: 'uri', maxLength: MAX_NOTIFICATION_URL_LENGTH });
      expect(url.pattern).toBeTypeOf('string');
    }
    const filter = deref(property(bodyOf('createSubscription'), 'filter'));
    const eans = (filter.anyOf as Schema[]).map((member) => property(member, 'eans')).find((s) => s.type === 'array');
    expect((eans?.items as Schema | undefined)?.pattern).toBe(EAN_PATTERN);
    expect(JSON.stringify(property(bodyOf('createSubscription'), 'replayFrom').anyOf)).toContain(
      JSON.stringify(CURSOR_PATTERN).slice(1, -1),
    );
    expect(JSON.stringify(property(bodyOf('replaySubscription'), 'from').anyOf)).toContain('date-time');
    expect(parameter('listEvents', 'after').pattern).toBe(CURSOR_PATTERN);
    for (const operationId of ['listSubscriptionDeliveries', 'adminListDeliveries'])
      expect(parameter(operationId, 'event').enum, operationId).toEqual([...ACCEPTED_EVENT_SPELLINGS, 'ping']);
    expect(parameter('listOffers', 'eans')).toMatchObject({ pattern: EAN_LIST_PATTERN, minLength: 8 });
    expect(property(bodyOf('adminCreateOffer'), 'ean').pattern).toBe(EAN_PATTERN);
    expect(property(bodyOf('adminCreateOffer'), 'price').multipleOf).toBe(0.01);
    expect(property(bodyOf('adminUpdateOffer'), 'price').multipleOf).toBe(0.01);
    for (const type of ['application/json', 'application/x-www-form-urlencoded'])
      expect(property(bodyOf('createToken', type), 'grant_type').enum).toEqual([...GRANT_TYPES]);
    const keys = operations().flatMap(({ operation }) =>
      (operation.parameters ?? []).filter((p) => p.name === 'idempotency-key'),
    );
    expect(keys.length).toBeGreaterThan(20);
    expect(keys.every((key) => key.schema.pattern === IDEMPOTENCY_KEY_PATTERN)).toBe(true);
  });

  it('the server refuses what those rules refuse', async () => {
    const subscribe = (body: Schema) =>
      h.app.inject({ method: 'POST', url: '/api/lml/v1/subscriptions', headers: bearer, payload: body });
    const url = 'https://hooks.shop.example/in';
    expect((await subscribe({ notificationUrl: url, event: 'list-publish' })).statusCode).toBe(400);
    expect(
      (await subscribe({ notificationUrl: 'ftp://hooks.shop.example/', event: 'list-published' })).statusCode,
    ).toBe(400);
    expect(
      (await subscribe({ notificationUrl: url, event: 'offer.published', filter: { eans: ['97890018914'] } }))
        .statusCode,
    ).toBe(400);
    expect(
      (await subscribe({ notificationUrl: url, event: 'list-published', replayFrom: 'yesterday' })).statusCode,
    ).toBe(400);
    for (const query of ['eans=', 'eans=abc', 'eans=9789001891442;9780194837125'])
      expect((await h.app.inject({ method: 'GET', url: `/api/v1/offers?${query}`, headers: bearer })).statusCode).toBe(
        400,
      );
    const offer = (body: Schema) =>
      h.app.inject({ method: 'POST', url: '/api/admin/v1/offers', headers: h.admin, payload: body });
    expect((await offer({ ean: '9789001891442', price: 12.345, condition: 'good' })).statusCode).toBe(400);
    const key = await h.app.inject({
      method: 'POST',
      url: '/api/admin/v1/offers',
      headers: { ...h.admin, 'idempotency-key': 'with space' },
      payload: { ean: '9789001891442', price: 12.5, condition: 'good' },
    });
    expect(key.statusCode).toBe(400);
    const grant = await h.anonymous().post('/api/auth/token', 'grant_type=password', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(grant.statusCode).toBe(400);
  });

  it('every create links to the operations its answer feeds, by parameters they take', () => {
    const failures: string[] = [];
    const creates = operations().filter(({ method, operation }) => method === 'post' && operation.responses['201']);
    expect(creates.length).toBeGreaterThanOrEqual(6);
    for (const { path, operation } of creates) {
      const links = Object.values(operation.responses['201']?.links ?? {});
      if (links.length === 0 && operation.operationId !== 'createAdminClientsPortalLink')
        failures.push(`${operation.operationId} (${path}) has no links`);
      for (const link of links) {
        const target = byId(link.operationId);
        if (target === undefined) failures.push(`${operation.operationId} → ${link.operationId}: no such operation`);
        for (const name of Object.keys(link.parameters))
          if (!target?.operation.parameters?.some((p) => p.name === name && p.in === 'path'))
            failures.push(`${operation.operationId} → ${link.operationId}: no path parameter ${name}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
