/**
 * Cookie-session guards for the browser surfaces. A session cookie alone never authorises a state
 * change: unsafe methods must echo the session's CSRF token in X-CSRF-Token (SameSite=Strict is the
 * second line of defence, not the only one).
 */

import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { cookieOptions } from '../http/cookies.js';
import { Problem } from '../problems/catalogue.js';
import { attachActor } from '../vocabulary/actor.js';
import { CSRF_HEADER, type SessionKind, type WebSession, WebSessions } from './sessions.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const attached = new WeakMap<FastifyRequest, WebSession>();

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string): void {
  void reply.setCookie(name, value, cookieOptions(request));
}

/** Admits a request on its `cookie` session of `kind` (CSRF checked on unsafe methods) and attaches the session. */
export async function admitSession(
  webSessions: WebSessions,
  request: FastifyRequest,
  cookie: string,
  kind: SessionKind,
): Promise<WebSession> {
  const session = await webSessions.resolve(request.cookies[cookie], kind);
  if (session === undefined)
    throw new Problem(
      'unauthenticated',
      kind === 'portal' ? 'sign in with the link your operator sent you' : 'sign in with the admin token',
    );
  return admitResolved(request, session);
}

/** Admits a request on a session already resolved: the CSRF token checked on unsafe methods, the session attached. */
export function admitResolved(request: FastifyRequest, session: WebSession): WebSession {
  if (!SAFE_METHODS.has(request.method) && !WebSessions.csrfMatches(session, request.headers[CSRF_HEADER])) {
    throw new Problem('csrf-rejected', `send the session's CSRF token in ${CSRF_HEADER}`);
  }
  attached.set(request, session);
  if (session.kind === 'portal' && session.clientRef !== null)
    attachActor(request, { type: 'partner', id: session.clientRef, name: null, role: null });
  return session;
}

/** Requires a live session of `kind` (and the CSRF token on unsafe methods). */
export const requireSession =
  (webSessions: WebSessions, cookie: string, kind: SessionKind): onRequestAsyncHookHandler =>
  async (request) => {
    await admitSession(webSessions, request, cookie, kind);
  };

/** The portal client of a request that passed requireSession(…, 'portal'). */
export function portalClientOf(request: FastifyRequest): string {
  const clientRef = attached.get(request)?.clientRef;
  if (clientRef === undefined || clientRef === null) throw new Problem('unauthenticated');
  return clientRef;
}
