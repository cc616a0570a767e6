/**
 * A route with a body accepts JSON only. A route whose schema lists its media types in `consumes` (the
 * token endpoint, which takes forms as OAuth clients send them) answers for itself in its own error shape. Without this, the form parser that the token
 * endpoint needs would turn `curl -d '{…}'` (a form content type) into an object whose one key is the
 * whole JSON text, and the answer would be a baffling validation error instead of a clear 415.
 * Checked in preValidation, once the body is parsed and before the schema judges it.
 */
import type { FastifyInstance, preValidationHookHandler, RouteOptions } from 'fastify';
import { Problem } from '../problems/catalogue.js';

const JSON_ONLY: readonly string[] = ['application/json'];

/** `application/json; charset=utf-8` → `application/json`; a missing header is none. */
function mediaTypeOf(header: string | undefined): string | undefined {
  const type = header?.split(';', 1)[0]?.trim().toLowerCase();
  return type === undefined || type === '' ? undefined : type;
}

function acceptOnly(accepted: readonly string[]): preValidationHookHandler {
  const expected = accepted.length === 1 ? `Content-Type: ${accepted[0]}` : `one of ${accepted.join(', ')}`;
  return (request, _reply, done) => {
    const type = mediaTypeOf(request.headers['content-type']);
    // No body at all (no content type) is the schema's business: it says what is missing.
    if (type === undefined || accepted.includes(type)) {
      done();
      return;
    }
    done(new Problem('unsupported-media-type', `this endpoint reads ${expected}, not ${type}; send ${expected}`));
  };
}

export function registerMediaTypeRule(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema?.body === undefined) return;
    if ((route.schema as { consumes?: readonly string[] }).consumes !== undefined) return;
    const hook = acceptOnly(JSON_ONLY);
    const existing = route.preValidation;
    route.preValidation =
      existing === undefined ? [hook] : [hook, ...(Array.isArray(existing) ? existing : [existing])];
  });
}
