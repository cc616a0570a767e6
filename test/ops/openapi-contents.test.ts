/** What integrators and the SDK rely on in /openapi.json: operationIds, the oauth2 scheme, optional limit, the form body, webhooks. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVENT_NAMES } from '../../src/events/catalogue.js';
import { describeEachEngine } from '../support/engines.js';
import { createHarness, type Harness } from '../support/harness.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, unknown>;
  security?: unknown[];
}
interface Doc {
  servers: { url: string }[];
  info: { license: { name: string } };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<
    string,
    {
      post: Operation & {
        requestBody: {
          content: { 'application/json': { schema: { properties: Record<string, { enum?: string[] }> } } };
        };
      };
    }
  >;
  components: {
    securitySchemes: Record<
      string,
      { type: string; flows?: { clientCredentials?: { tokenUrl: string; scopes: Record<string, string> } } }
    >;
  };
}

describeEachEngine('OpenAPI contents', (engine) => {
  let h: Harness;
  let doc: Doc;
  beforeAll(async () => {
    h = await createHarness(engine);
    doc = (await h.anonymous().get('/openapi.json')).json<Doc>();
  });
  afterAll(async () => h.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  it('every operation declares a unique camelCase operationId on its route', () => {
    const ids = operations().map(({ operation }) => operation.operationId ?? '');
    expect(ids.every((id) => /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/api/v1/offers']?.get?.operationId).toBe('listOffers');
    expect(doc.paths['/api/auth/token']?.post?.operationId).toBe('createToken');
    expect(doc.paths['/api/admin/v1/offers']?.post?.operationId).toBe('adminCreateOffer');
    // Nothing derives an id from the URL any more: a route without its own operationId shows up as ''.
    expect(ids.filter((id) => id === '')).toEqual([]);
  });

  it('the token endpoint marks grant_type required in both of its bodies (form and JSON)', () => {
    const post = doc.paths['/api/auth/token']?.post as unknown as {
      requestBody: { content: Record<string, { schema: { required?: string[] } }> };
    };
    const bodies = Object.entries(post.requestBody.content);
    expect(bodies.map(([type]) => type).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    for (const [, body] of bodies) expect(body.schema.required).toEqual(['grant_type']);
  });

  it('servers, license, defined tags; public operations say they are public', () => {
    expect(doc.servers).toEqual([
      { url: '/', description: 'This server (the document is served by the API it describes)' },
    ]);
    expect(doc.info.license.name).toBe('MIT');
    const used = new Set(operations().flatMap(({ operation }) => (operation as { tags?: string[] }).tags ?? []));
    const defined = new Set(doc.tags.map((tag) => tag.name));
    expect([...used].filter((tag) => !defined.has(tag))).toEqual([]);
    expect(doc.paths['/healthz']?.get?.security).toEqual([]);
  });

  it('bearer is an oauth2 client-credentials scheme pointing at the token endpoint', () => {
    const bearer = doc.components.securitySchemes.bearer;
    expect(bearer?.type).toBe('oauth2');
    expect(bearer?.flows?.clientCredentials?.tokenUrl).toBe('/api/auth/token');
    expect(Object.keys(bearer?.flows?.clientCredentials?.scopes ?? {})).toEqual([
      'offers:read',
      'lml:read',
      'webhooks:manage',
    ]);
  });

  it('limit is optional on every collection; the token body is form-encoded first; real statuses are documented', () => {
    const limits = operations().flatMap(({ path, method, operation }) =>
      (operation.parameters ?? [])
        .filter((p) => p.name === 'limit')
        .map((p) => ({ at: `${method} ${path}`, required: p.required === true })),
    );
    expect(limits.length).toBeGreaterThanOrEqual(8);
    expect(limits.filter((limit) => limit.required)).toEqual([]);
    expect(Object.keys(doc.paths['/api/auth/token']?.post?.requestBody?.content ?? {})).toEqual([
      'application/x-www-form-urlencoded',
      'application/json',
    ]);
    expect(Object.keys(doc.paths['/api/lml/v1/subscriptions']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '409', '413', '415', '422']),
    );
    expect(Object.keys(doc.paths['/api/admin/v1/lists/{identifier}/status']?.post?.responses ?? {})).toContain('409');
    expect(Object.keys(doc.paths['/api/admin/v1/offers/{id}']?.delete?.responses ?? {})).toContain('204');
    expect(Object.keys(doc.paths['/api/v1/offers']?.get?.responses ?? {})).toContain('304');
    const noResponses = operations().filter(({ operation }) => Object.keys(operation.responses).length === 0);
    expect(noResponses).toEqual([]);
    const idempotent = doc.paths['/api/admin/v1/offers']?.post?.parameters?.find((p) => p.name === 'idempotency-key');
    expect(idempotent).toMatchObject({ in: 'header', required: false });
  });

  it('a webhooks entry per event with its payload and the signature headers', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_NAMES].sort());
    for (const event of EVENT_NAMES) {
      const post = doc.webhooks[event]?.post;
      const headers = (post?.parameters ?? [])
        .filter((p) => p.in === 'header' && p.required === true)
        .map((p) => p.name);
      expect(headers, event).toEqual([
        'x-hook-signature',
        'x-hook-event',
        'x-hook-event-id',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      const properties = post?.requestBody.content['application/json'].schema.properties ?? {};
      expect(Object.keys(properties), event).toEqual(['type', 'resource', 'identifier']);
      expect(properties.resource?.enum, event).toEqual([event.split('.')[0]]);
    }
    expect(
      doc.webhooks['list.status']?.post.requestBody.content['application/json'].schema.properties.type?.enum,
    ).toEqual(['created', 'validated', 'published', 'archived']);
  });
});
