/**
 * Who caused a change and from where: what a route hands its service so the service can record the
 * change in the audit log. Routes read it off the request (`initiatorOf`); the CLI and the system
 * (the delivery worker, the pruner) have fixed ones.
 */
import { userInfo } from 'node:os';
import type { FastifyRequest } from 'fastify';
import { type Actor, actorOf, originOf, type RequestOrigin, SYSTEM_ACTOR } from '../vocabulary/actor.js';
import type { AuditAction } from './catalogue.js';

export interface Initiator {
  readonly actor: Actor;
  readonly origin: RequestOrigin;
  /**
   * The audit actions the route acting declares (its `config.audit`): the change may record only
   * those. Undefined where no route acts (the CLI, the system).
   */
  readonly declared?: readonly AuditAction[];
}

const NO_ORIGIN: RequestOrigin = { requestId: null, ip: null, userAgent: null };

/** Automatic actions: a subscription disabled by delivery, a prune. */
export const SYSTEM: Initiator = { actor: SYSTEM_ACTOR, origin: NO_ORIGIN };

/**
 * The CLI acts on the database directly, so whoever runs it holds the same break-glass power as the
 * admin token: it is recorded as the `admin-token` actor, named after the CLI and the OS user.
 */
export function cliInitiator(user: string = osUser()): Initiator {
  return {
    actor: { type: 'admin-token', id: 'cli', name: `cli (${user})`, role: 'admin' },
    origin: { ...NO_ORIGIN, userAgent: 'shelfmark-cli' },
  };
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * The initiator of a request a guard admitted. Bearer routes (the partner API) attach no actor: their
 * principal is the partner client, recorded as the portal records it (actor type `partner`, its id).
 */
export function initiatorOf(request: FastifyRequest): Initiator {
  const principal = request.principal;
  const actor: Actor | undefined =
    actorOf(request) ??
    (principal === null || principal === undefined
      ? undefined
      : { type: 'partner', id: principal.clientRef, name: null, role: null });
  if (actor === undefined) throw new Error(`${request.method} ${request.url}: no guard admitted an actor to audit`);
  // The route's declaration (src/http/route-config.ts), read here so that the record is bound to it.
  const { audit } = request.routeOptions.config as { audit?: AuditAction | readonly AuditAction[] };
  return { actor, origin: originOf(request), declared: audit === undefined ? undefined : [audit].flat() };
}
