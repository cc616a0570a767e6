/**
 * One sentence per problem code for the /problems pages: what usually causes it and what to do.
 * Partial on purpose: a code added to the catalogue still gets a page (with a generic sentence).
 */
import { fieldOf } from '../config/load.js';
import type { ConfigKey } from '../config/types.js';
import { defaultOf } from '../limits/catalogue.js';
import { MAX_PATH_SEGMENT } from '../limits/http-limits.js';
import type { ProblemCode } from '../problems/catalogue.js';

/** A size setting as the page names it: its variable and its default, read from the configuration. */
const sizeSetting = (key: ConfigKey): string => `${fieldOf(key).env}, ${defaultOf(key, 'bytes')} by default`;

export const PROBLEM_HINTS: Partial<Record<ProblemCode, string>> = {
  'validation-failed':
    'A parameter or body member is missing, of the wrong type or out of range; the errors member lists each one with its location and path.',
  'invalid-ean':
    'One or more EAN codes are not valid EAN-8, EAN-13 or GTIN-14 codes (check digit included); the detail names them.',
  'malformed-body':
    'The body is not valid JSON (or is empty while content-type says JSON). Send a well-formed JSON document.',
  unauthenticated:
    'No credentials, or wrong ones. Public API calls need Authorization: Bearer <access token>; admin calls need Bearer <ADMIN_TOKEN>.',
  'invalid-token':
    'The bearer token is garbled, forged, signed by an unknown key, or belongs to a revoked client or a reset secret. Obtain a new token.',
  'token-expired':
    'The access token has expired (tokens live one hour by default). Obtain a new one at /api/auth/token.',
  'insufficient-scope':
    'The token was issued without the scope this endpoint requires. Request a token with that scope.',
  'csrf-rejected':
    'A browser session (portal or console) sent a state change without its CSRF token. Reload the page and try again.',
  forbidden:
    'The operator role you signed in with (or of your credential) is below the role this operation needs; the role member names it. Ask an admin, or have the role changed at the identity provider and sign in again.',
  'not-found': 'The resource does not exist, is not visible to your client, or is not published.',
  'route-not-found': 'No endpoint answers this method and path. See /docs for the reference.',
  conflict: 'The request conflicts with the current state of the resource; fetch it again and retry.',
  'illegal-transition':
    'This status change is not allowed from the current status (lists: created → validated → published → archived).',
  'body-too-large': `The request body exceeds the size limit (${sizeSetting('bodyLimitBytes')}).`,
  'uri-too-long': `The URL (path and query) exceeds its limit (${sizeSetting('maxUrlLength')}), or one path segment exceeds ${MAX_PATH_SEGMENT} characters. Send fewer or shorter parameters.`,
  'headers-too-large': `The request line and headers exceed their limit (${sizeSetting('maxHeaderBytes')}).`,
  'malformed-request':
    'The bytes received are not a valid HTTP/1.1 request, the URL is not valid percent-encoded UTF-8, or it contains a NUL character (%00).',
  'request-timeout': 'The request headers or body did not arrive in time.',
  'rate-limited':
    'This client exceeded its request rate (RateLimit-Policy says the quota). Wait for Retry-After seconds; the RateLimit header on every response says what is left.',
  'subscription-limit':
    'The client has as many subscriptions as MAX_SUBSCRIPTIONS_PER_CLIENT allows. Delete one first.',
  'idempotency-key-in-use':
    'The first request with this Idempotency-Key has not finished yet. Retry shortly with the same key and body to get its answer.',
  'idempotency-key-reused':
    'This Idempotency-Key was already used (within 24 hours) for a request with another method, path or body. Use a new key for a new request.',
  'unsupported-media-type':
    'Send content-type: application/json (the token endpoint also accepts application/x-www-form-urlencoded).',
  'blocked-address':
    'The notification URL resolves to a loopback, private, link-local or otherwise non-public address, which webhooks may not target.',
  'unresolvable-host': 'The host name of the notification URL does not resolve in DNS.',
  'cursor-expired':
    'The feed cursor is older than the event retention (EVENT_RETENTION_DAYS), so events after it may be gone. Read the feed again from its start (no after, or the start cursor in the answer) and reconcile.',
  'replay-too-large':
    'A replay queues at most 10,000 past events; the limit member says so. Replay from a later time or cursor, in several steps.',
  internal: 'An unexpected error on our side. It has been logged; quote the instance (request id) when reporting it.',
  unavailable: 'The service is starting, shutting down or cannot reach its database. Retry shortly.',
};
