/** Bearer-token guard for every /api route except the token endpoint and the admin API. */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { parseBearer } from './basic.js';
import type { Scope } from './scopes.js';
import { type Principal, type TokenService, tokenProblems } from './token-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function requireScope(tokens: TokenService, scope: Scope): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const token = parseBearer(request.headers.authorization);
    if (token === undefined) {
      throw request.headers.authorization === undefined ? tokenProblems.missing() : tokenProblems.invalid();
    }
    const principal = await tokens.authenticate(token);
    if (!principal.scopes.includes(scope)) throw tokenProblems.scope(scope);
    request.principal = principal;
  };
}

/** The authenticated principal of a guarded route (the guard guarantees it is set). */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Error('route is missing its bearer guard');
  return request.principal;
}
