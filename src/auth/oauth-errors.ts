/**
 * The token endpoint's refusals, one class per RFC 6749 §5.2 error code. They are rendered as
 * `{error, error_description}` with their status (and headers), which every OAuth client parses;
 * the rest of the API answers with problem documents instead.
 */
import { TOO_MANY_ATTEMPTS } from '../limits/auth-failures.js';

export abstract class OAuthError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;

  constructor(
    readonly description: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(description);
  }
}

/** A missing or malformed parameter, or a request that is otherwise wrong in shape. */
export class InvalidRequest extends OAuthError {
  readonly status = 400;
  readonly code = 'invalid_request';
}

/** Unknown client, wrong secret, revoked client, or no credentials. */
export class InvalidClient extends OAuthError {
  readonly status = 401;
  readonly code = 'invalid_client';
}

/** A scope that does not exist, or that the client may not request. */
export class InvalidScope extends OAuthError {
  readonly status = 400;
  readonly code = 'invalid_scope';
}

export class UnsupportedGrantType extends OAuthError {
  readonly status = 400;
  readonly code = 'unsupported_grant_type';

  constructor() {
    super('only grant_type=client_credentials is supported');
  }
}

/** The brute-force limit (limits/auth-failures.ts): not an RFC 6749 code, but shaped like one. */
export class TooManyAttempts extends OAuthError {
  readonly status = 429;
  readonly code = TOO_MANY_ATTEMPTS;

  constructor(retryAfterSeconds: number) {
    super(`too many failed authentications for this client from this address; retry after ${retryAfterSeconds} s`, {
      'retry-after': String(retryAfterSeconds),
    });
  }
}

export interface OAuthErrorBody {
  error: string;
  error_description: string;
}
