/**
 * The one onRoute hook that turns a route's declared behaviour (route-config.ts) into hooks on that
 * route only: its guard, the Idempotency-Key handling of an idempotent POST, and the ETag of a polled
 * GET. Installed before compression, so the ETag and the remembered answer see the uncompressed body.
 * Documentation reads the same declarations (openapi/operations.ts).
 */
import type { FastifyInstance, onRequestHookHandler, preHandlerHookHandler, RouteOptions } from 'fastify';
import type { Role } from '../vocabulary/actor.js';
import { appendHook, prependHook } from './append-hook.js';
import { tagBody } from './etag.js';
import type { IdempotencyHooks } from './idempotency.js';
import { changesState, hasEtag, methodsOf, type RouteAuth, takesIdempotencyKey } from './route-config.js';

/** The hooks that admit a request under one kind of auth; none for public routes. */
export interface Guard {
  /** Before the body is read: refused callers never get their body parsed or validated. */
  onRequest?: onRequestHookHandler;
  /** After validation (bearer routes: a malformed request answers 400 before the token is checked). */
  preHandler?: preHandlerHookHandler;
}

/**
 * Builds the guard of each declared auth (the composition root knows the services behind them). An
 * admin route's guard also holds the caller to the route's role: the one place roles are enforced.
 */
export type GuardFactory = (auth: RouteAuth, options: { rateLimit: boolean; role?: Role }) => Guard;

/** Why a route may not be registered as declared; undefined when it may. */
export function declarationProblem(
  route: Pick<RouteOptions, 'method' | 'url' | 'config' | 'schema'>,
): string | undefined {
  const config = route.config ?? {};
  const name = `${methodsOf(route).join(',')} ${route.url}`;
  if (config.auth === undefined) return `${name} declares no auth (config.auth)`;
  if (config.auth === 'admin' && config.role === undefined)
    return `${name} is an admin route but declares no operator role (config.role: viewer, support or admin)`;
  if (config.auth !== 'admin' && config.role !== undefined)
    return `${name} declares an operator role but its auth is not admin`;
  if (changesState(route) && config.idempotent === undefined)
    return `${name} changes state but does not declare whether it is idempotent (config.idempotent)`;
  // HEAD: Fastify's twin of a GET, with the GET's declarations.
  if (config.etag === true && !methodsOf(route).some((method) => method === 'GET' || method === 'HEAD'))
    return `${name} declares an ETag but is not a GET`;
  return undefined;
}

/**
 * Routes added by third-party plugins (Swagger UI's pages and assets) declare nothing and are public;
 * they are recognised by being hidden from the document and not declaring auth. Every other route
 * that declares nothing is refused when it is registered.
 */
const isUndeclaredPluginPage = (route: RouteOptions): boolean =>
  route.config?.auth === undefined && route.schema?.hide === true && !changesState(route);

export function registerRouteBehaviour(
  app: FastifyInstance,
  { guardFor, idempotency }: { guardFor: GuardFactory; idempotency: IdempotencyHooks },
): void {
  app.addHook('onRoute', (route) => {
    if (isUndeclaredPluginPage(route)) return;
    const problem = declarationProblem(route);
    if (problem !== undefined) throw new Error(problem);
    const config = route.config ?? {};
    const guard = guardFor(config.auth ?? 'public', { rateLimit: config.rateLimit ?? true, role: config.role });
    if (guard.onRequest !== undefined) prependHook(route, 'onRequest', guard.onRequest);
    if (guard.preHandler !== undefined) prependHook(route, 'preHandler', guard.preHandler);
    if (takesIdempotencyKey(route)) {
      appendHook(route, 'preHandler', idempotency.before);
      appendHook(route, 'onSend', idempotency.after);
    }
    if (hasEtag(route)) appendHook(route, 'onSend', tagBody);
  });
}
