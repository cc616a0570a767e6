/**
 * Application-wide hooks of the operations surface, installed on the root instance before any route
 * exists (app.ts calls instrumentApp first):
 * - every route is recorded in a catalogue, so tests and docs can enumerate whatever capabilities
 *   other modules add, without a hand-kept list;
 * - routes that do not declare OpenAPI security get it from their URL prefix, so the document stays
 *   truthful as routes are added; UI and asset routes are hidden from it;
 * - every response is timed into the HTTP histogram, labelled by route pattern (never the raw URL,
 *   which would let clients mint unbounded label values).
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Metrics } from './metrics.js';

export interface CatalogedRoute {
  method: string;
  url: string;
  /** Hidden from the OpenAPI document (UI pages, static assets). */
  hidden: boolean;
}

const catalogs = new WeakMap<object, CatalogedRoute[]>();

/** Every route registered on this app (HEAD twins of GET routes left out). */
export function routeCatalog(app: FastifyInstance): readonly CatalogedRoute[] {
  return catalogs.get(app) ?? [];
}

type SecurityScheme = 'basic' | 'bearer' | 'admin';

/** The security scheme a URL is guarded by, per the route groups of DESIGN.md; undefined = public. */
export function securityFor(url: string): SecurityScheme | undefined {
  if (url === '/api/auth/token') return 'basic';
  if (url === '/api/admin/v1' || url.startsWith('/api/admin/v1/')) return 'admin';
  if (url.startsWith('/api/')) return 'bearer';
  return undefined;
}

const HIDDEN_PREFIXES = ['/docs', '/dashboard'];

function isHiddenUrl(url: string): boolean {
  return HIDDEN_PREFIXES.some((prefix) => url === prefix || url.startsWith(`${prefix}/`));
}

function applyDocumentationDefaults(route: RouteOptions): boolean {
  const schema = route.schema ?? {};
  const hidden = schema.hide === true || isHiddenUrl(route.url);
  const scheme = securityFor(route.url);
  const withSecurity = scheme !== undefined && schema.security === undefined ? { security: [{ [scheme]: [] }] } : {};
  const withHide = hidden && schema.hide !== true ? { hide: true } : {};
  if (Object.keys(withSecurity).length > 0 || Object.keys(withHide).length > 0) {
    // @fastify/swagger keeps a reference to these options and reads `schema` when the document is built.
    route.schema = { ...schema, ...withSecurity, ...withHide };
  }
  return hidden;
}

export function instrumentApp(app: FastifyInstance, metrics: Metrics): void {
  const catalog: CatalogedRoute[] = [];
  catalogs.set(app, catalog);

  app.addHook('onRoute', (route) => {
    const hidden = applyDocumentationDefaults(route);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      // Fastify adds a HEAD twin for every GET; it is the same route for every purpose here.
      if (method === 'HEAD' && catalog.some((known) => known.method === 'GET' && known.url === route.url)) continue;
      catalog.push({ method, url: route.url, hidden });
    }
  });

  // Timed into the histogram with a callback hook: no promise per request.
  const histogram = metrics.httpRequests;
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    histogram.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
}
