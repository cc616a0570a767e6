/**
 * Strong ETags and 304 Not Modified on the read routes whose bodies clients poll (offers, LML reads):
 * the GET routes that declare `etag: true` (route-config.ts) get the hooks (route-behaviour.ts), and
 * only 200 answers are hashed (SHA-1 of the serialised body, a small cost per answer; figures:
 * docs/performance.md#decisions). The tag is computed on the uncompressed body; when
 * compression then encodes the answer, the tag gets the encoding as a suffix (`"…-br"`), as RFC 9110
 * §8.8.3 wants a strong validator per representation. If-None-Match accepts either form.
 */
import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { appendHook } from './append-hook.js';
import { hasEtag } from './route-config.js';

const ENCODING_SUFFIX = /-(br|gzip|deflate)"$/;

function matches(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  // Weak comparison (RFC 9110 §13.1.2): W/ prefixes and encoding suffixes do not matter.
  return header
    .split(',')
    .some((candidate) => candidate.trim().replace(/^W\//, '').replace(ENCODING_SUFFIX, '"') === tag);
}

// Callback hooks and the one-shot hash: these run on the hottest route, where a promise per hook and a
// Hash object per answer showed up in the profile; one-shot hashing avoids the Hash object and is the
// faster of the two (docs/performance.md#decisions).
export const tagBody: onSendHookHandler = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
  if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload)))
    return done(null, payload);
  // A route that knows its representation's tag already (the offers read model) set it; else hash.
  const given = reply.getHeader('etag');
  const tag = typeof given === 'string' ? given : `"${hash('sha1', payload, 'base64url')}"`;
  void reply.header('etag', tag);
  if (!matches(request.headers['if-none-match'], tag)) return done(null, payload);
  void reply.code(304).removeHeader('content-type').removeHeader('content-length');
  done(null, '');
};

const tagEncoding: onSendHookHandler = (_request, reply, payload: unknown, done) => {
  const encoding = reply.getHeader('content-encoding');
  const tag = reply.getHeader('etag');
  if (typeof encoding === 'string' && typeof tag === 'string' && !ENCODING_SUFFIX.test(tag))
    void reply.header('etag', `${tag.slice(0, -1)}-${encoding}"`);
  done(null, payload);
};

/**
 * After compression is registered: the tag names the encoding that was applied. (The tag itself is
 * appended by route-behaviour.ts before compression's own onSend, so it sees the uncompressed body.)
 */
export function registerEtagEncodingSuffix(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (hasEtag(route)) appendHook(route, 'onSend', tagEncoding);
  });
}
