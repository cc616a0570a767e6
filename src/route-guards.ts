/**
 * The guard behind each kind of auth a route can declare (http/route-config.ts), part of the
 * composition root: it knows the services that admit a request. Built once per app; each bearer
 * scope's guard once.
 */
import { adminOrConsole } from './admin/guard.js';
import { requireScope } from './auth/guard.js';
import { SCOPES, type Scope } from './auth/scopes.js';
import type { Guard, GuardFactory } from './http/route-behaviour.js';
import type { Services } from './services.js';
import { requireSession } from './web-sessions/guard.js';
import { PORTAL_COOKIE } from './web-sessions/sessions.js';

const isScope = (scope: string): scope is Scope => (SCOPES as readonly string[]).includes(scope);

export function routeGuards(s: Pick<Services, 'tokens' | 'rateLimit' | 'webSessions' | 'adminAuth'>): GuardFactory {
  const admin: Guard = { onRequest: adminOrConsole({ webSessions: s.webSessions, adminAuth: s.adminAuth }) };
  const portal: Guard = { onRequest: requireSession(s.webSessions, PORTAL_COOKIE, 'portal') };
  const bearer = new Map<string, Guard>();
  return (auth, { rateLimit }) => {
    if (auth === 'public' || auth === 'client-credentials') return {};
    if (auth === 'admin') return admin;
    if (auth === 'portal') return portal;
    if (!isScope(auth.scope))
      throw new Error(`unknown scope ${JSON.stringify(auth.scope)} (known: ${SCOPES.join(', ')})`);
    const key = `${auth.scope} ${rateLimit}`;
    let guard = bearer.get(key);
    if (guard === undefined) {
      guard = { preHandler: requireScope(s.tokens, auth.scope, rateLimit ? s.rateLimit : undefined) };
      bearer.set(key, guard);
    }
    return guard;
  };
}
