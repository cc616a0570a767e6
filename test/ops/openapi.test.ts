import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPI } from 'openapi-types';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routeCatalog } from '../../src/observability/instrument.js';
import { PROBLEMS } from '../../src/problems/catalogue.js';
import { describeEachEngine } from '../support/engines.js';
import { createHarness, type Harness } from '../support/harness.js';

interface Operation {
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
}
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
};

/**
 * The scheme each route group must end up with (DESIGN.md's route groups): an independent check of
 * what the routes declare, which is where the document takes it from.
 */
function expectedScheme(url: string): 'basic' | 'bearer' | 'admin' | undefined {
  if (url === '/api/auth/token') return 'basic';
  if (url === '/api/admin/v1' || url.startsWith('/api/admin/v1/')) return 'admin';
  if (url.startsWith('/api/')) return 'bearer';
  return undefined;
}

/** Fastify's `/a/:id` is OpenAPI's `/a/{id}`. */
const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describeEachEngine('OpenAPI document, reference page and problem pages', (engine) => {
  let h: Harness;
  let doc: Document;
  beforeAll(async () => {
    h = await createHarness(engine);
    const response = await h.anonymous().get('/openapi.json');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    doc = response.json<Document>();
  });
  afterAll(async () => h.close());

  it('is OpenAPI 3.1.0 and valid against the specification', async () => {
    expect(doc.openapi).toBe('3.1.0');
    // The validator dereferences in place: give it a copy.
    const copy: OpenAPI.Document = JSON.parse(JSON.stringify(doc)) as OpenAPI.Document;
    await expect(SwaggerParser.validate(copy)).resolves.toBeDefined();
  });

  it('documents every route under /api/ and /.well-known/ with its method', () => {
    const api = routeCatalog(h.app).filter(
      (route) => !route.hidden && (route.url.startsWith('/api/') || route.url.startsWith('/.well-known/')),
    );
    expect(api.length).toBeGreaterThan(5);
    const missing = api.filter(
      (route) => doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()] === undefined,
    );
    expect(missing).toEqual([]);
  });

  it('sets the security scheme of every operation by route group', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['admin', 'basic', 'bearer']);
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      const expected = expectedScheme(path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1'));
      for (const [method, operation] of Object.entries(item)) {
        const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
        if (expected === undefined ? schemes.length > 0 : !schemes.includes(expected))
          wrong.push(`${method.toUpperCase()} ${path}: ${schemes.join(',') || 'none'}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(doc.paths['/api/auth/token']?.get?.security).toEqual([{ basic: [] }]);
    // A bearer route names the scope it declares.
    expect(doc.paths['/api/v1/offers']?.get?.security).toEqual([{ bearer: ['offers:read'] }]);
    expect(doc.paths['/api/lml/v1/subscriptions']?.post?.security).toEqual([{ bearer: ['webhooks:manage'] }]);
    expect(doc.paths['/api/admin/v1/clients']?.post?.security).toEqual([{ admin: [] }]);
  });

  it('keeps UI pages and static assets out of the document', () => {
    const hidden = Object.keys(doc.paths).filter((path) => /^\/(docs|dashboard|openapi\.json)/.test(path));
    expect(hidden).toEqual([]);
  });

  it('serves the reference page and its assets locally', async () => {
    const page = await h.anonymous().get('/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).not.toMatch(/https?:\/\//);
    const scripts = [...page.body.matchAll(/src="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(scripts).toContain('/docs/static/swagger-ui-bundle.js');
    for (const src of scripts) {
      const asset = await h.anonymous().get(src);
      expect(asset.statusCode, src).toBe(200);
      expect(asset.headers['content-type']).toMatch(/javascript/);
    }
    const css = await h.anonymous().get('/docs/static/swagger-ui.css');
    expect(css.statusCode).toBe(200);
    const spec = await h.anonymous().get('/docs/json');
    expect(spec.json<Document>().openapi).toBe('3.1.0');
  });

  it('explains every problem code at its type URI, and 404s for unknown codes', async () => {
    for (const [code, { status, title }] of Object.entries(PROBLEMS)) {
      const response = await h.anonymous().get(`/problems/${code}`);
      expect(response.statusCode, code).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['content-security-policy']).toContain("default-src 'none'");
      expect(response.body).toContain(title);
      expect(response.body).toContain(`<strong>${status}</strong>`);
    }
    for (const unknown of ['nope', '__proto__', 'constructor', '%3Cscript%3E']) {
      const response = await h.anonymous().get(`/problems/${unknown}`);
      expect(response.statusCode, unknown).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json().code).toBe('not-found');
    }
  });

  it('the type of a real error body resolves to its page', async () => {
    const problem = await h.anonymous().get('/api/admin/v1/clients');
    const type = problem.json<{ type: string }>().type;
    expect(type).toBe('/problems/unauthenticated');
    expect((await h.anonymous().get(type)).statusCode).toBe(200);
  });
});
