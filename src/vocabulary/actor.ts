/**
 * Who makes a request: the one fact the roles (what may they do) and the audit log (who did it)
 * both read. The guards attach it when they admit a request; services receive it from the route.
 */
import type { FastifyRequest } from 'fastify';

/** Operator roles, weakest first: each may do everything the ones before it may. */
export const ROLES = ['viewer', 'support', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const ACTOR_TYPES = ['operator', 'admin-token', 'api-token', 'partner', 'system'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface Actor {
  readonly type: ActorType;
  /** Operator `sub`, API token id, partner client id; null for the admin token and the system. */
  readonly id: string | null;
  /** Operator e-mail or name, API token name, partner name; null where there is none. */
  readonly name: string | null;
  /** The operator role it acts with; null for partners (their own data only) and the system. */
  readonly role: Role | null;
}

/** Where a request came from, recorded beside the actor. */
export interface RequestOrigin {
  readonly requestId: string | null;
  readonly ip: string | null;
  readonly userAgent: string | null;
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, name: null, role: null };
export const ADMIN_TOKEN_ACTOR: Actor = { type: 'admin-token', id: null, name: 'admin token', role: 'admin' };

export const roleAtLeast = (role: Role | null, needed: Role): boolean =>
  role !== null && ROLES.indexOf(role) >= ROLES.indexOf(needed);

const actors = new WeakMap<FastifyRequest, Actor>();

/** Called by a guard once it has admitted the request. */
export function attachActor(request: FastifyRequest, actor: Actor): void {
  actors.set(request, actor);
}

/** The actor a guard attached; a request no guard admitted acts as nobody (never as the system). */
export function actorOf(request: FastifyRequest): Actor | undefined {
  return actors.get(request);
}

export function originOf(request: FastifyRequest): RequestOrigin {
  const userAgent = request.headers['user-agent'];
  return { requestId: request.id, ip: request.ip, userAgent: typeof userAgent === 'string' ? userAgent : null };
}
