/**
 * Application-wide hooks of the operations surface, installed on the root instance before any route
 * exists (app.ts calls instrumentApp first):
 * - every route is recorded in a catalogue with what it declares (http/route-config.ts), so tests and
 *   docs can enumerate whatever capabilities other modules add, without a hand-kept list;
 * - every response is timed into the HTTP histogram, labelled by route pattern (never the raw URL,
 *   which would let clients mint unbounded label values).
 */
import type { FastifyInstance } from 'fastify';
import type { RouteBehaviour } from '../http/route-config.js';
import type { Metrics } from './metrics.js';

export interface CatalogedRoute {
  method: string;
  url: string;
  /** Hidden from the OpenAPI document (UI pages, static assets). */
  hidden: boolean;
  /** What the route declares (auth, etag, idempotent, problems, rateLimit). */
  config: RouteBehaviour;
}

const catalogs = new WeakMap<object, CatalogedRoute[]>();

/** Every route registered on this app (HEAD twins of GET routes left out). */
export function routeCatalog(app: FastifyInstance): readonly CatalogedRoute[] {
  return catalogs.get(app) ?? [];
}

export function instrumentApp(app: FastifyInstance, metrics: Metrics): void {
  const catalog: CatalogedRoute[] = [];
  catalogs.set(app, catalog);

  app.addHook('onRoute', (route) => {
    const hidden = route.schema?.hide === true;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      // Fastify adds a HEAD twin for every GET; it is the same route for every purpose here.
      if (method === 'HEAD' && catalog.some((known) => known.method === 'GET' && known.url === route.url)) continue;
      catalog.push({ method, url: route.url, hidden, config: { ...(route.config ?? {}) } });
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
