/**
 * One sentence per problem code for the /problems pages: what usually causes it and what to do.
 * Partial on purpose: a code added to the catalogue still gets a page (with a generic sentence).
 */
import type { ProblemCode } from '../errors.js';

export const PROBLEM_HINTS: Partial<Record<ProblemCode, string>> = {
  'validation-failed': 'A parameter or body member is missing, of the wrong type or out of range; the errors member lists each one with its location and path.',
  'invalid-ean': 'One or more EAN codes are not valid EAN-8, EAN-13 or GTIN-14 codes (check digit included); the detail names them.',
  'malformed-body': 'The body is not valid JSON (or is empty while content-type says JSON). Send a well-formed JSON document.',
  unauthenticated: 'No credentials, or wrong ones. Public API calls need Authorization: Bearer <access token>; admin calls need Bearer <ADMIN_TOKEN>.',
  'invalid-token': 'The bearer token is garbled, forged, signed by an unknown key, or belongs to a revoked client or a reset secret. Obtain a new token.',
  'token-expired': 'The access token has expired (tokens live one hour by default). Obtain a new one at /api/auth/token.',
  'insufficient-scope': 'The token was issued without the scope this endpoint requires. Request a token with that scope.',
  'csrf-rejected': 'A browser session (portal or console) sent a state change without its CSRF token. Reload the page and try again.',
  'not-found': 'The resource does not exist, is not visible to your client, or is not published.',
  'route-not-found': 'No endpoint answers this method and path. See /docs for the reference.',
  conflict: 'The request conflicts with the current state of the resource; fetch it again and retry.',
  'illegal-transition': 'This status change is not allowed from the current status (lists: created → validated → published → archived).',
  'idempotency-key-in-use': 'The first request with this Idempotency-Key has not finished yet. Retry shortly with the same key and body to get its answer.',
  'idempotency-key-reused': 'This Idempotency-Key was already used (within 24 hours) for a request with another method, path or body. Use a new key for a new request.',
  'body-too-large': 'The request body exceeds the size limit (256 KiB).',
  'unsupported-media-type': 'Send content-type: application/json (the token endpoint also accepts application/x-www-form-urlencoded).',
  'blocked-address': 'The notification URL resolves to a loopback, private, link-local or otherwise non-public address, which webhooks may not target.',
  'unresolvable-host': 'The host name of the notification URL does not resolve in DNS.',
  internal: 'An unexpected error on our side. It has been logged; quote the instance (request id) when reporting it.',
  unavailable: 'The service is starting, shutting down or cannot reach its database. Retry shortly.',
};
