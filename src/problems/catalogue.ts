/**
 * The error catalogue: every failure the API can report has a stable code here, and is rendered
 * in one place (app.ts) as RFC 9457 application/problem+json. Token-endpoint errors use the
 * RFC 6749 shape instead (see auth/auth.routes.ts), because OAuth clients expect it.
 */

export const PROBLEMS = {
  'validation-failed': { status: 400, title: 'Request validation failed' },
  'invalid-ean': { status: 400, title: 'One or more EAN codes are invalid' },
  'malformed-body': { status: 400, title: 'The request body could not be parsed' },
  'malformed-request': { status: 400, title: 'The request is malformed' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  'invalid-token': { status: 401, title: 'The access token is invalid' },
  'token-expired': { status: 403, title: 'The access token has expired' },
  'insufficient-scope': { status: 403, title: 'The access token lacks the required scope' },
  'csrf-rejected': { status: 403, title: 'The CSRF token is missing or wrong' },
  forbidden: { status: 403, title: 'Your operator role does not allow this' },
  'not-found': { status: 404, title: 'Resource not found' },
  'route-not-found': { status: 404, title: 'No such endpoint' },
  'request-timeout': { status: 408, title: 'The request was not received in time' },
  conflict: { status: 409, title: 'The request conflicts with the current state' },
  'client-revoked': { status: 409, title: 'The client is revoked' },
  'illegal-transition': { status: 409, title: 'This status change is not allowed' },
  'subscription-limit': { status: 409, title: 'The client has reached its subscription limit' },
  'idempotency-key-in-use': { status: 409, title: 'A request with this Idempotency-Key is still being processed' },
  'cursor-expired': { status: 410, title: 'The cursor is older than the event retention' },
  'body-too-large': { status: 413, title: 'The request body is too large' },
  'uri-too-long': { status: 414, title: 'The request URL is too long' },
  'unsupported-media-type': { status: 415, title: 'Unsupported content type' },
  'blocked-address': { status: 422, title: 'The notification URL points to a forbidden address' },
  'unresolvable-host': { status: 422, title: 'The notification URL host does not resolve' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'headers-too-large': { status: 431, title: 'The request headers are too large' },
  'replay-too-large': { status: 422, title: 'The replay would exceed its bound' },
  'idempotency-key-reused': { status: 422, title: 'This Idempotency-Key was used for a different request' },
  internal: { status: 500, title: 'Internal server error' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  code: ProblemCode;
  [extension: string]: unknown;
}

/** An expected failure. Services throw it; the error handler renders it. */
export class Problem extends Error {
  readonly status: number;
  constructor(
    readonly code: ProblemCode,
    readonly detail?: string,
    /** Extra members for the body, e.g. { errors: [...] }. Never secrets. */
    readonly extensions: Record<string, unknown> = {},
    /** Extra response headers, e.g. WWW-Authenticate. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? PROBLEMS[code].title);
    this.name = 'Problem';
    this.status = PROBLEMS[code].status;
  }
}

export const problemType = (code: ProblemCode): string => `/problems/${code}`;

export function problemBody(problem: Problem, requestId: string): ProblemBody {
  const body: ProblemBody = {
    type: problemType(problem.code),
    title: PROBLEMS[problem.code].title,
    status: problem.status,
    ...(problem.detail === undefined ? {} : { detail: problem.detail }),
    instance: requestId,
    code: problem.code,
  };
  // Extensions follow the standard members and can never replace them.
  for (const [key, value] of Object.entries(problem.extensions)) if (!(key in body)) body[key] = value;
  return body;
}

export const notFound = (what: string): Problem => new Problem('not-found', `${what} was not found`);

/** A revoked client's subscription or delivery: nothing brings it back, so every attempt to is refused alike. */
export const clientRevoked = (what: string): Problem =>
  new Problem('client-revoked', `${what} belongs to a revoked client; nothing is sent to it any more`);
