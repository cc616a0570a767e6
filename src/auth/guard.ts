/** The bearer-token guard of the routes that declare `auth: { scope }` (route-guards.ts applies it). */
import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { RequestRateLimit } from '../limits/request-limit.js';
import { parseBearer } from './basic.js';
import type { Scope } from './scopes.js';
import { tokenProblems } from './token-problems.js';
import type { Principal, TokenService } from './token-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/**
 * Verifies the bearer token and its scope (one of them, when several are given), then spends one
 * request of the client's rate limit (when given).
 */
export function requireScope(
  tokens: TokenService,
  scope: Scope | readonly Scope[],
  rateLimit: RequestRateLimit | undefined,
): preHandlerHookHandler {
  const accepted: readonly Scope[] = typeof scope === 'string' ? [scope] : scope;
  const admit = (request: FastifyRequest, reply: FastifyReply, principal: Principal): void => {
    if (!accepted.some((one) => principal.scopes.includes(one))) throw tokenProblems.scope(accepted.join(' '));
    request.principal = principal;
    rateLimit?.consume(principal.clientId, reply);
  };
  // A callback hook: a token this node verified before is admitted without a promise per request.
  return (request, reply, done) => {
    let found: Principal | Promise<Principal>;
    try {
      const token = parseBearer(request.headers.authorization);
      if (token === undefined) {
        throw request.headers.authorization === undefined ? tokenProblems.missing() : tokenProblems.invalid();
      }
      found = tokens.authenticate(token);
      if (!(found instanceof Promise)) admit(request, reply, found);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (!(found instanceof Promise)) {
      done();
      return;
    }
    found.then(
      (principal) => {
        try {
          admit(request, reply, principal);
        } catch (error) {
          done(error as Error);
          return;
        }
        done();
      },
      (error: unknown) => done(error as Error),
    );
  };
}

/** The authenticated principal of a guarded route (the guard guarantees it is set). */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Error('route is missing its bearer guard');
  return request.principal;
}
