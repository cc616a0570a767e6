/**
 * What a route is, declared beside its schema in Fastify's route `config`, and read by one onRoute
 * hook (route-behaviour.ts) that applies it and by the OpenAPI builder that documents it. No part of
 * the service guesses a route's behaviour from its URL.
 *
 * ```ts
 * app.get('/api/v1/offers', { config: { auth: { scope: 'offers:read' }, etag: true }, schema }, handler)
 * ```
 */
import type { AuditAction } from '../audit/catalogue.js';
import type { ProblemCode } from '../problems/catalogue.js';
import type { Role } from '../vocabulary/actor.js';

/**
 * Who may call the route:
 * - `public`: anyone (pages, discovery documents, health);
 * - `{ scope }`: a bearer access token with this scope (then one request of the client's rate limit);
 *   `{ scope, orScopes }`: with this scope or any of those (the event feed: lml:read or offers:read);
 * - `client-credentials`: the token endpoint, which authenticates the client itself (HTTP Basic or form);
 * - `admin`: the operator (ADMIN_TOKEN, or the console's session cookie with CSRF on state changes);
 * - `portal`: a partner signed in to the portal (session cookie, CSRF on state changes).
 */
export type RouteAuth =
  | 'public'
  | 'client-credentials'
  | 'admin'
  | 'portal'
  | { readonly scope: string; readonly orScopes?: readonly string[] };

export interface RouteBehaviour {
  /** Required on every route (a test holds every registered route to it). */
  auth?: RouteAuth;
  /** Strong ETag and 304 Not Modified on a GET whose answer clients poll. */
  etag?: boolean;
  /**
   * Required on every state-changing route. `true`: repeating the request is safe — naturally (PUT,
   * DELETE) or, on a POST, through an Idempotency-Key that replays the first answer. `false`: it is not
   * (sign-ins, the token endpoint, whose answers must never be replayed).
   */
  idempotent?: boolean;
  /** Problems the route's service answers beyond those its inputs, guard and declarations cause. */
  problems?: readonly ProblemCode[];
  /** Bearer routes: spend one request of the client's rate limit (default true). */
  rateLimit?: boolean;
  /** A public document any web origin may read (Access-Control-Allow-Origin: *, no credentials). */
  anyOrigin?: boolean;
  /**
   * `admin` routes: the least operator role that may call it (src/vocabulary/actor.ts): `viewer` reads
   * everything but secrets, `support` also retries, recovers, re-enables and mints portal links, `admin`
   * does everything.
   */
  role?: Role;
  /**
   * State-changing `admin` and `portal` routes: the audit action(s) a successful call records
   * (src/audit/catalogue.ts), in the same transaction as the change; `[]` for a route that changes no
   * audited state (a sign-out). A call that changes nothing (revoking a revoked client) records none.
   * test/audit/route-coverage.test.ts holds every such route to its declaration.
   */
  audit?: AuditAction | readonly AuditAction[];
}

declare module 'fastify' {
  interface FastifyContextConfig extends RouteBehaviour {}
}

export const STATE_CHANGING = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function methodsOf(route: { method: string | string[] }): string[] {
  return Array.isArray(route.method) ? route.method : [route.method];
}

export const changesState = (route: { method: string | string[] }): boolean =>
  methodsOf(route).some((method) => (STATE_CHANGING as readonly string[]).includes(method));

/**
 * A POST of the APIs (a bearer or the operator's route) declared idempotent: it takes an
 * Idempotency-Key. Browser pages' POSTs (portal, sign-ins) are repeated safely by their own rules.
 */
export const takesIdempotencyKey = (route: { method: string | string[]; config?: RouteBehaviour }): boolean =>
  route.config?.idempotent === true &&
  methodsOf(route).includes('POST') &&
  (isBearer(route.config.auth) || route.config.auth === 'admin');

/** A GET declared with an ETag. */
export const hasEtag = (route: { method: string | string[]; config?: RouteBehaviour }): boolean =>
  route.config?.etag === true && methodsOf(route).includes('GET');

export const isBearer = (auth: RouteAuth | undefined): auth is { readonly scope: string } => typeof auth === 'object';
