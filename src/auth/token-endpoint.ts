/**
 * The token endpoint as a pipeline of named steps:
 *   parse (grant type, credentials) → authenticate the client → check the scopes → issue
 * The scope rule (a client gets only scopes on its allow-list) lives in TokenService.issue, so every
 * caller of the service is held to it, not only this endpoint. The grant type and the shape of the
 * request are checked before authentication, so a malformed request never costs a secret hash and is
 * never counted as a failed authentication.
 */
import type { AuthFailureLimit } from '../limits/auth-failures.js';
import { type ClientCredentials, parseBasic } from './basic.js';
import type { Authentication, ClientService } from './client-service.js';
import { DemoSecretPolicy } from './demo-secret.js';
import { InvalidClient, InvalidRequest, InvalidScope, TooManyAttempts, UnsupportedGrantType } from './oauth-errors.js';
import { isScope, SCOPES, type Scope } from './scopes.js';
import { GRANT_TYPES } from './token-schemas.js';
import type { IssuedToken, TokenService } from './token-service.js';

/** A token request after parsing: who claims to ask, and the scope text (checked once the client is known). */
export interface TokenRequest {
  credentials: ClientCredentials;
  scope: string | undefined;
}

/** The POST body (RFC 6749 §4.4.2), form-encoded or JSON. */
export interface TokenForm {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
  scope?: string;
}

/** Step: HTTP Basic credentials (client_secret_basic), the only form the seed's GET knows. */
export function basicCredentials(authorization: string | undefined): ClientCredentials {
  const credentials = parseBasic(authorization);
  if (credentials === undefined) {
    throw new InvalidClient(
      authorization === undefined
        ? 'send Authorization: Basic base64(clientId:clientSecret)'
        : 'the Authorization header is not a valid Basic credential',
    );
  }
  return credentials;
}

/** Step: the requested scopes must exist (whether the client may have them is the service's rule). */
export function requestedScopes(scope: string | undefined): Scope[] | undefined {
  if (scope === undefined || scope.trim() === '') return undefined;
  const names = scope.trim().split(/\s+/);
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) {
    throw new InvalidScope(`unknown scope(s): ${unknown.join(', ')}; accepted: ${SCOPES.join(', ')}`);
  }
  return [...new Set(names.filter(isScope))];
}

/** Step: parse a POST — the grant type, then where the credentials are (header or body, never both). */
export function parseGrantRequest(form: TokenForm, authorization: string | undefined): TokenRequest {
  if (form.grant_type === undefined) throw new InvalidRequest('grant_type is required');
  if (!(GRANT_TYPES as readonly string[]).includes(form.grant_type)) throw new UnsupportedGrantType();
  const inBody = form.client_id !== undefined || form.client_secret !== undefined;
  if (inBody && authorization !== undefined) {
    throw new InvalidRequest('send client credentials either in the Authorization header or in the body, not both');
  }
  let credentials: ClientCredentials;
  if (inBody) {
    if (form.client_id === undefined || form.client_secret === undefined) {
      throw new InvalidClient('both client_id and client_secret are required');
    }
    credentials = { clientId: form.client_id, clientSecret: form.client_secret };
  } else {
    credentials = basicCredentials(authorization);
  }
  return { credentials, scope: form.scope };
}

export class TokenEndpoint {
  constructor(
    private readonly clients: ClientService,
    private readonly tokens: TokenService,
    private readonly authFailures: AuthFailureLimit,
    /** Refuses the demo client's published secret on a non-loopback bind (demo-secret.ts). */
    readonly demoSecret: DemoSecretPolicy = new DemoSecretPolicy(),
  ) {}

  /**
   * Steps: brute-force allowance → authenticate the client → check the requested scopes → issue.
   * Synchronous when the client's row and the signing key are in memory, so the hot path awaits
   * nothing; its refusals are thrown then, and rejected otherwise.
   */
  issueToken(ip: string, { credentials, scope }: TokenRequest, issuer: string): IssuedToken | Promise<IssuedToken> {
    const { clientId, clientSecret } = credentials;
    // The brute-force limit is checked before the secret is hashed (see limits/auth-failures.ts).
    const wait = this.authFailures.retryAfter(clientId, ip);
    if (wait > 0) throw new TooManyAttempts(wait);
    this.demoSecret.check(credentials);
    const issue = (client: Authentication): IssuedToken | Promise<IssuedToken> => {
      if (client === undefined) {
        this.authFailures.recordFailure(clientId, ip);
        throw new InvalidClient('client authentication failed: wrong client id or secret');
      }
      // Said only to whoever holds the right secret: a wrong one above learns nothing of the client.
      if (client === 'revoked')
        throw new InvalidClient('this client was revoked by the operator; it gets no tokens any more');
      return this.tokens.issueNow(client, requestedScopes(scope), issuer);
    };
    const client = this.clients.authenticate(clientId, clientSecret);
    return client instanceof Promise ? client.then(issue) : issue(client);
  }
}
