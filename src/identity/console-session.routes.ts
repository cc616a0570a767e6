/**
 * The operator console's session: the sign-in that exchanges the admin token for an HttpOnly session
 * cookie, what the page asks on every load, and the sign-out. The page (pages/console.routes.ts) calls
 * the admin API with that cookie (and the CSRF header on state changes), so the admin API stays the
 * only place where operator rules run.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AuthFailureLimit } from '../limits/auth-failures.js';
import { Problem } from '../problems/catalogue.js';
import type { AdminAuth } from './admin-guard.js';
import type { OperatorService } from './operator-service.js';
import { setSessionCookie } from './session-guard.js';
import { CONSOLE_COOKIE, type WebSessions } from './sessions.js';

export interface ConsoleSessionRoutesOptions {
  adminAuth: AdminAuth;
  authFailures: AuthFailureLimit;
  webSessions: WebSessions;
  sessionIdleSeconds: number;
  /** Sign-in through the identity provider, and its logout. */
  operators: OperatorService;
}

export const consoleSessionRoutes: FastifyPluginAsyncTypebox<ConsoleSessionRoutesOptions> = async (
  app,
  { adminAuth, authFailures, webSessions, sessionIdleSeconds, operators },
) => {
  const schema = { hide: true } as const;

  app.post(
    '/dashboard/api/session',
    {
      config: { auth: 'public', idempotent: false },
      schema: { ...schema, body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 512 }) }) },
    },
    async (request, reply) => {
      // The same brute-force allowance as the token endpoint, for the pseudo-client "console".
      const wait = authFailures.retryAfter('(console)', request.ip);
      if (wait > 0)
        throw new Problem(
          'rate-limited',
          `too many failed sign-ins from this address; retry after ${wait} s`,
          {},
          { 'retry-after': String(wait) },
        );
      if (!(await adminAuth.verifyFresh(request.body.token))) {
        authFailures.recordFailure('(console)', request.ip);
        throw new Problem('unauthenticated', 'the admin token is wrong');
      }
      const { sessionId, session } = await webSessions.startConsole();
      setSessionCookie(request, reply, CONSOLE_COOKIE, sessionId);
      void reply.header('cache-control', 'no-store');
      return { csrfToken: session.csrfToken };
    },
  );

  // Answers 200 either way: the page asks on every load, and a signed-out visitor is not an error.
  app.get('/dashboard/api/session', { config: { auth: 'public' }, schema }, async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const session = await webSessions.resolve(request.cookies[CONSOLE_COOKIE], 'console');
    // Signed out: how the page offers to sign in (the provider when one is configured).
    const signIn =
      operators.oidc === undefined
        ? { oidc: null }
        : { oidc: { issuer: operators.oidc.issuer, name: operators.oidc.issuerName, url: '/dashboard/login/oidc' } };
    if (session === undefined) return { signedIn: false, ...signIn };
    const { operator } = session;
    return {
      signedIn: true,
      csrfToken: session.csrfToken,
      idleTimeoutSeconds: sessionIdleSeconds,
      // The role the console shows and hides by; a session opened with the admin token is an admin's.
      role: operator?.role ?? 'admin',
      operator:
        operator === null
          ? null
          : { sub: operator.sub, email: operator.email, name: operator.name, role: operator.role },
    };
  });

  // The operator's session (or token), CSRF-checked: a cross-site page cannot sign the operator out.
  app.post(
    '/dashboard/api/sign-out',
    { config: { auth: 'admin', role: 'viewer', idempotent: true, audit: [] }, schema },
    async (request, reply) => {
      const { idToken } = await webSessions.end(request.cookies[CONSOLE_COOKIE]);
      void reply.clearCookie(CONSOLE_COOKIE, { path: '/' });
      // An operator's session also ends at the provider where it supports RP-initiated logout: the page
      // goes there next, and the provider sends the browser back to the console.
      const back = operators.oidc === undefined ? undefined : `${new URL(operators.oidc.redirectUri).origin}/dashboard`;
      const endSessionUrl =
        idToken === null || back === undefined ? undefined : await operators.logoutUrl(idToken, back);
      return endSessionUrl === undefined ? reply.code(204).send() : { endSessionUrl };
    },
  );
};
