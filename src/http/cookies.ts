/**
 * The one policy for the cookies the pages set (sessions, sign-in state, the language): HttpOnly,
 * SameSite=Strict, for the whole origin, and Secure whenever the page was reached over HTTPS.
 */
import type { FastifyRequest } from 'fastify';

export function cookieOptions(request: FastifyRequest, maxAgeSeconds?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'strict' as const,
    // Secure whenever the page was reached over HTTPS (directly, or via a proxy Fastify trusts).
    secure: request.protocol === 'https',
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}
