/**
 * The guard behind each kind of auth a route can declare (http/route-config.ts), part of the
 * composition root: it knows the services that admit a request. Built once per app; each bearer
 * scope's guard once.
 */
import { adminOrConsole } from './admin/guard.js';
import { requireScope } from './auth/guard.js';
import { SCOPES, type Scope } from './auth/scopes.js';
import { Problem } from './errors.js';
import type { Guard, GuardFactory } from './http/route-behaviour.js';
import type { Services } from './services.js';
import { actorOf, type Role, roleAtLeast } from './vocabulary/actor.js';
import { requireSession } from './web-sessions/guard.js';
import { PORTAL_COOKIE } from './web-sessions/sessions.js';

const isScope = (scope: string): scope is Scope => (SCOPES as readonly string[]).includes(scope);

export function routeGuards(
  s: Pick<Services, 'tokens' | 'rateLimit' | 'webSessions' | 'adminAuth' | 'operators'>,
): GuardFactory {
  const admitOperator = adminOrConsole({
    webSessions: s.webSessions,
    adminAuth: s.adminAuth,
    apiTokens: s.operators.apiTokens,
  });
  // One guard per role: admits the operator (token or session), then holds them to the route's role.
  const admin = new Map<Role, Guard>();
  const adminGuard = (role: Role): Guard => ({
    onRequest: async function guard(request, reply) {
      await admitOperator.call(this, request, reply);
      const actor = actorOf(request);
      if (!roleAtLeast(actor?.role ?? null, role))
        throw new Problem('forbidden', `this needs the ${role} role; you act as ${actor?.role ?? 'no role'}`, {
          role,
          yourRole: actor?.role ?? null,
        });
    },
  });
  const portal: Guard = { onRequest: requireSession(s.webSessions, PORTAL_COOKIE, 'portal') };
  const bearer = new Map<string, Guard>();
  return (auth, { rateLimit, role }) => {
    if (auth === 'public' || auth === 'client-credentials') return {};
    if (auth === 'admin') {
      // The declaration check (route-behaviour.ts) refuses an admin route without a role first.
      if (role === undefined) throw new Error('an admin route must declare its operator role');
      let guard = admin.get(role);
      if (guard === undefined) {
        guard = adminGuard(role);
        admin.set(role, guard);
      }
      return guard;
    }
    if (auth === 'portal') return portal;
    const scopes = [auth.scope, ...(auth.orScopes ?? [])];
    const unknown = scopes.find((scope) => !isScope(scope));
    if (unknown !== undefined)
      throw new Error(`unknown scope ${JSON.stringify(unknown)} (known: ${SCOPES.join(', ')})`);
    const key = `${scopes.join(' ')} ${rateLimit}`;
    let guard = bearer.get(key);
    if (guard === undefined) {
      guard = { preHandler: requireScope(s.tokens, scopes as Scope[], rateLimit ? s.rateLimit : undefined) };
      bearer.set(key, guard);
    }
    return guard;
  };
}
