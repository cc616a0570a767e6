/**
 * Every failure the SDK reports is a ShelfmarkError subclass, so callers can branch with instanceof
 * and read typed fields. No error ever carries the client secret or an access token.
 */
import type { ProblemDocument } from './types.js';

export class ShelfmarkError extends Error {
  override name = 'ShelfmarkError';
}

/** The options given to the client cannot work (e.g. staging requested but no staging address known). */
export class ConfigurationError extends ShelfmarkError {
  override name = 'ConfigurationError';
}

/** The service answered with an error: status, stable code, detail and request id from the problem document. */
export class ApiError extends ShelfmarkError {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly detail: string | undefined;
  /** The request id (the problem's `instance`, or the x-request-id header): quote it to the operator. */
  readonly requestId: string | undefined;
  readonly problem: ProblemDocument;

  constructor(status: number, problem: ProblemDocument, requestId: string | undefined) {
    const code = typeof problem.code === 'string' ? problem.code : `http-${status}`;
    const detail = typeof problem.detail === 'string' ? problem.detail : undefined;
    super(`${status} ${code}${detail === undefined ? '' : `: ${detail}`}`);
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.requestId = typeof problem.instance === 'string' ? problem.instance : requestId;
    this.problem = problem;
  }
}

/**
 * The token endpoint refused the client id and secret (401), or the request (400). Carries the OAuth
 * error fields and the client id, never the secret.
 */
export class AuthenticationError extends ShelfmarkError {
  override name = 'AuthenticationError';
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string | undefined,
    readonly clientId: string,
    readonly requestId: string | undefined,
  ) {
    super(
      `token request for client ${clientId} failed with ${status} ${error}${description === undefined ? '' : `: ${description}`}`,
    );
  }
}

/** An attempt took longer than the configured timeout. */
export class TimeoutError extends ShelfmarkError {
  override name = 'TimeoutError';
}

/** The service could not be reached (DNS, connection refused, reset ...). The cause is the platform's error. */
export class NetworkError extends ShelfmarkError {
  override name = 'NetworkError';
}

export interface InvalidEan {
  ean: string;
  reason: string;
}

/** Client-side EAN validation failed; no request was sent. Same rules and reasons as the service's 400 invalid-ean. */
export class InvalidEanError extends ShelfmarkError {
  override name = 'InvalidEanError';
  constructor(readonly invalidEans: InvalidEan[]) {
    super(
      `invalid EAN code${invalidEans.length === 1 ? '' : 's'}: ${invalidEans.map(({ ean, reason }) => `${ean === '' ? '""' : ean} (${reason})`).join(', ')}`,
    );
  }
}
