/**
 * Idempotency-Key on every POST declared `idempotent` (route-config.ts; the token endpoint declares it
 * is not: its answer must never be replayed). Only those routes get the hooks (route-behaviour.ts),
 * and a request without the header pays one header look-up; with it, one claim insert before the
 * handler and one update after. The owner is the authenticated client (or the operator), so keys
 * never collide between clients. The rules are in src/idempotency/service.ts.
 */
import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { IdempotencyService, requestHash } from '../idempotency/service.js';
import { Problem } from '../problems/catalogue.js';

const REPLAYED_HEADERS = ['content-type', 'location'];

interface Claim {
  owner: string;
  key: string;
}
const claims = new WeakMap<FastifyRequest, Claim>();

function ownerOf(request: FastifyRequest): string | undefined {
  if (request.principal !== null) return `client:${request.principal.clientRef}`;
  // The operator's guard admitted the request (an admin route), by token or console session.
  if (request.routeOptions.config.auth === 'admin') return 'admin';
  return undefined;
}

export interface IdempotencyHooks {
  before: preHandlerHookHandler;
  after: onSendHookHandler;
}

export function idempotencyHooks(service: IdempotencyService): IdempotencyHooks {
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

  return { before, after };
}
