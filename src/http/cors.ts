/**
 * CORS. Routes that declare `anyOrigin` (the public discovery documents, /.well-known/*) carry
 * `Access-Control-Allow-Origin: *` always: they are public and read without credentials, and
 * browser-based tools fetch them. Everything else is opened only to the origins in CORS_ORIGINS
 * (default: none, and then no CORS code runs at all), and the token endpoint (`auth:
 * 'client-credentials'`) only when CORS_TOKEN_ENDPOINT is set too, so a browser never sees the client
 * secret flow unless the operator chose that. No cookies are used, so credentials are never allowed.
 * A preflight answers for the URL it asks about, so the declared routes' URLs are collected as they
 * are registered.
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

const ALLOWED_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'if-none-match', 'x-request-id'];
const EXPOSED_HEADERS = ['etag', 'location', 'retry-after', 'www-authenticate', 'x-request-id'];

export async function registerCors(app: FastifyInstance, config: Config): Promise<void> {
  const anyOrigin = new Set<string>();
  const tokenEndpoints = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (route.config?.auth === 'client-credentials') tokenEndpoints.add(route.url);
    if (route.config?.anyOrigin !== true) return;
    anyOrigin.add(route.url);
    const open = async (_request: FastifyRequest, reply: { header(name: string, value: string): unknown }) => {
      reply.header('access-control-allow-origin', '*');
    };
    const current = route.onRequest;
    route.onRequest = current === undefined ? [open] : Array.isArray(current) ? [...current, open] : [current, open];
  });
  if (config.corsOrigins.length === 0) return;

  const origin = config.corsOrigins.includes('*') ? '*' : [...config.corsOrigins];
  const open: FastifyCorsOptions = {
    origin,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
  };
  const closed: FastifyCorsOptions = { origin: false };
  await app.register(cors, {
    hideOptionsRoute: true,
    delegator: (request, callback) => {
      const path = request.url.split('?')[0] ?? '';
      if (anyOrigin.has(path)) return callback(null, closed); // already `*` above
      callback(null, tokenEndpoints.has(path) && !config.corsTokenEndpoint ? closed : open);
    },
  });
}
