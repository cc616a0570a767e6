/**
 * Every route says what it is: who may call it, and for a state-changing route whether
 * repeating it is safe. The behaviour and the OpenAPI document come from those declarations; a route
 * that declares nothing is refused when it is registered.
 */

import Fastify from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declarationProblem, registerRouteBehaviour } from '../../src/http/route-behaviour.js';
import { changesState } from '../../src/http/route-config.js';
import { routeCatalog } from '../../src/observability/instrument.js';
import { PROBLEMS, type ProblemCode } from '../../src/problems/catalogue.js';
import { createHarness, type Harness } from '../support/harness.js';

/** Swagger UI's own pages and assets: added by the plugin, hidden, read-only. */
const SWAGGER_UI = /^\/docs(\/|$)/;

describe('route declarations', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite');
  });
  afterAll(async () => h.close());

  it('every route declares its auth, and every state-changing route whether it is idempotent', () => {
    const routes = routeCatalog(h.app).filter((route) => !SWAGGER_UI.test(route.url) && route.method !== 'OPTIONS');
    expect(routes.length).toBeGreaterThan(50);
    const undeclared = routes.filter((route) => route.config.auth === undefined).map((r) => `${r.method} ${r.url}`);
    expect(undeclared).toEqual([]);
    const unsaid = routes
      .filter((route) => changesState(route) && route.config.idempotent === undefined)
      .map((r) => `${r.method} ${r.url}`);
    expect(unsaid).toEqual([]);
    // The plugin's pages are the only routes that declare nothing, and they are hidden and read-only.
    const plugin = routeCatalog(h.app).filter((route) => SWAGGER_UI.test(route.url));
    expect(plugin.length).toBeGreaterThan(0);
    expect(plugin.every((route) => route.hidden && !changesState(route))).toBe(true);
  });

  it('the document takes security and problems from the declarations', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenAPIV3_1.Document>();
    const operation = (path: string, method: 'get' | 'post') => doc.paths?.[path]?.[method];
    const codes = (path: string, method: 'get' | 'post', status: string): string =>
      String((operation(path, method)?.responses?.[status] as { description?: string } | undefined)?.description);
    // Declared problems of the service, beside those of the inputs, the guard and the Idempotency-Key.
    expect(codes('/api/lml/v1/subscriptions', 'post', '422')).toBe(
      ['idempotency-key-reused', 'blocked-address', 'unresolvable-host', 'replay-too-large']
        .map((code) => `${code}: ${PROBLEMS[code as ProblemCode].title}`)
        .join('; '),
    );
    expect(codes('/api/lml/v1/subscriptions', 'post', '429')).toContain('rate-limited');
    expect(codes('/api/v1/offers', 'get', '403')).toContain('insufficient-scope');
    expect(operation('/api/v1/offers', 'get')?.responses?.['304']).toBeDefined();
    // The token endpoint answers in the RFC 6749 shape, never a problem, and takes no Idempotency-Key;
    // only Node's parser, before any route is found, answers headers too large (431) as a problem.
    const token = operation('/api/auth/token', 'post');
    const { '431': _parser, ...own } = token?.responses ?? {};
    expect(JSON.stringify(own)).not.toContain('problem+json');
    expect(JSON.stringify(token?.parameters ?? [])).not.toContain('idempotency-key');
    expect(operation('/api/admin/v1/lists', 'post')?.security).toEqual([{ admin: [] }]);
  });

  it('a route that declares nothing, or changes state without saying whether it is idempotent, is refused', async () => {
    expect(declarationProblem({ method: 'GET', url: '/x', config: {} })).toBe('GET /x declares no auth (config.auth)');
    expect(declarationProblem({ method: 'POST', url: '/x', config: { auth: 'admin', role: 'admin' } })).toBe(
      'POST /x changes state but does not declare whether it is idempotent (config.idempotent)',
    );
    expect(declarationProblem({ method: 'GET', url: '/x', config: { auth: 'admin' } })).toBe(
      'GET /x is an admin route but declares no operator role (config.role: viewer, support or admin)',
    );
    expect(
      declarationProblem({ method: 'POST', url: '/x', config: { auth: 'public', etag: true, idempotent: true } }),
    ).toBe('POST /x declares an ETag but is not a GET');
    expect(
      declarationProblem({ method: 'DELETE', url: '/x', config: { auth: 'admin', role: 'admin', idempotent: true } }),
    ).toBe(undefined);

    const app = Fastify();
    registerRouteBehaviour(app, {
      guardFor: () => ({}),
      idempotency: { before: async () => undefined, after: async (_request, _reply, payload) => payload },
    });
    expect(() => app.get('/undeclared', async () => 'no')).toThrow('GET /undeclared declares no auth');
    app.get('/declared', { config: { auth: 'public' } }, async () => 'yes');
    expect((await app.inject({ method: 'GET', url: '/declared' })).body).toBe('yes');
    await app.close();
  });

  it('a bearer route runs its guard before its own hooks, and a scope nobody knows is refused', async () => {
    const order: string[] = [];
    const app = Fastify();
    registerRouteBehaviour(app, {
      guardFor: (auth) => {
        if (typeof auth === 'object' && auth.scope !== 'offers:read') throw new Error(`unknown scope ${auth.scope}`);
        return { preHandler: async () => void order.push('guard') };
      },
      idempotency: { before: async () => undefined, after: async (_request, _reply, payload) => payload },
    });
    app.get(
      '/guarded',
      { config: { auth: { scope: 'offers:read' } }, preHandler: async () => void order.push('route') },
      async () => 'ok',
    );
    expect(() => app.get('/typo', { config: { auth: { scope: 'offer:read' } } }, async () => 'no')).toThrow(
      'unknown scope offer:read',
    );
    await app.inject({ method: 'GET', url: '/guarded' });
    expect(order).toEqual(['guard', 'route']);
    await app.close();
  });
});
