/**
 * Idempotency-Key on every POST of the API (client and admin; not the token endpoint, whose answer
 * must never be replayed). Only routes that can receive the header get the hooks, and a request
 * without the header pays one header look-up; with it, one claim insert before the handler and one
 * update after. The owner is the authenticated client (or the operator), so keys never collide
 * between clients. The rules are in src/idempotency/service.ts.
 */
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendHookHandler,
  preHandlerHookHandler,
  RouteOptions,
} from 'fastify';
import { Problem } from '../errors.js';
import { IdempotencyService, requestHash } from '../idempotency/service.js';

const EXCLUDED = new Set(['/api/auth/token']);
const REPLAYED_HEADERS = ['content-type', 'location'];

interface Claim {
  owner: string;
  key: string;
}
const claims = new WeakMap<FastifyRequest, Claim>();

export const takesIdempotencyKey = (route: Pick<RouteOptions, 'method' | 'url'>): boolean => {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.includes('POST') && route.url.startsWith('/api/') && !EXCLUDED.has(route.url);
};

function ownerOf(request: FastifyRequest): string | undefined {
  if (request.principal !== null) return `client:${request.principal.clientRef}`;
  // The admin guard ran (onRequest) for every route under this prefix.
  if (request.routeOptions.url?.startsWith('/api/admin/v1/') === true) return 'admin';
  return undefined;
}

function append<K extends 'preHandler' | 'onSend'>(
  route: RouteOptions,
  name: K,
  hook: K extends 'preHandler' ? preHandlerHookHandler : onSendHookHandler,
): void {
  const current = route[name] as unknown;
  const list = current === undefined ? [] : Array.isArray(current) ? current : [current];
  (route as unknown as Record<string, unknown>)[name] = [...list, hook];
}

export function registerIdempotency(app: FastifyInstance, service: IdempotencyService): void {
  const before: preHandlerHookHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    if (typeof header !== 'string' || !IdempotencyService.validKey(header)) {
      throw new Problem('validation-failed', 'Idempotency-Key must be 1 to 255 visible ASCII characters, sent once');
    }
    const owner = ownerOf(request);
    if (owner === undefined) return;
    const path = request.url.split('?')[0] ?? request.url;
    const outcome = await service.begin(owner, header, requestHash(request.method, path, request.body));
    if (outcome.kind === 'run') {
      claims.set(request, { owner, key: header });
      return;
    }
    const { statusCode, headers, body } = outcome.answer;
    void reply.code(statusCode).headers(headers).header('idempotent-replayed', 'true');
    return reply.send(body);
  };

  const after: onSendHookHandler = async (request, reply, payload: unknown) => {
    const claim = claims.get(request);
    if (claim === undefined) return payload;
    claims.delete(request);
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (typeof value === 'string') headers[name] = value;
    }
    const secret = String(reply.getHeader('cache-control') ?? '').includes('no-store');
    const body = secret
      ? null
      : typeof payload === 'string'
        ? payload
        : Buffer.isBuffer(payload)
          ? payload.toString('utf8')
          : '';
    await service.finish(claim.owner, claim.key, { statusCode: reply.statusCode, headers, body });
    return payload;
  };

  app.addHook('onRoute', (route) => {
    if (!takesIdempotencyKey(route)) return;
    append(route, 'preHandler', before);
    append(route, 'onSend', after);
  });
}
