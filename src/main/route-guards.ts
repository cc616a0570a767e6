/**
 * The guard behind each kind of auth a route can declare (http/route-config.ts), part of the
 * composition root: it knows the services that admit a request. Built once per app; each bearer
 * scope's guard once.
 */

import { requireScope } from '../auth/guard.js';
import { SCOPES, type Scope } from '../auth/scopes.js';
import type { Guard, GuardFactory } from '../http/route-behaviour.js';
import { adminOrConsole, operatorGuards } from '../identity/admin-guard.js';
import { requireSession } from '../identity/session-guard.js';
import { PORTAL_COOKIE } from '../identity/sessions.js';
import type { RouteServices } from './routes.js';

const isScope = (scope: string): scope is Scope => (SCOPES as readonly string[]).includes(scope);

export function routeGuards(
  s: Pick<RouteServices, 'tokens' | 'rateLimit' | 'webSessions' | 'adminAuth' | 'operators'>,
): GuardFactory {
  const admin = operatorGuards(
    adminOrConsole({ webSessions: s.webSessions, adminAuth: s.adminAuth, apiTokens: s.operators.apiTokens }),
  );
  const portal: Guard = { onRequest: requireSession(s.webSessions, PORTAL_COOKIE, 'portal') };
  const bearer = new Map<string, Guard>();
  return (auth, { rateLimit, role }) => {
    if (auth === 'public' || auth === 'client-credentials') return {};
    if (auth === 'admin') {
      // The declaration check (route-behaviour.ts) refuses an admin route without a role first.
      if (role === undefined) throw new Error('an admin route must declare its operator role');
      return admin(role);
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
