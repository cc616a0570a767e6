/**
 * The token endpoint as straight steps, each handing its value to the next:
 *   classify (where the credentials are) → parse (grant type, credentials, scopes) → authenticate → issue
 * The scope rule (a client gets only scopes on its allow-list) lives in TokenService.issue, so every
 * caller of the service is held to it, not only this endpoint. The grant type and the shape of the
 * request are checked before authentication, so a malformed request never costs a secret hash and is
 * never counted as a failed authentication. The scopes are checked once the client is known, so a
 * wrong secret is refused (and counted) whatever scopes it names.
 */
import type { AuthFailureLimit } from '../limits/auth-failures.js';
import { type ClientCredentials, parseBasic } from './basic.js';
import type { ClientService } from './client-service.js';
import { DemoSecretPolicy } from './demo-secret.js';
import { InvalidClient, InvalidRequest, InvalidScope, TooManyAttempts, UnsupportedGrantType } from './oauth-errors.js';
import { isScope, SCOPES, type Scope } from './scopes.js';
import { GRANT_TYPES } from './token-schemas.js';
import type { IssuedToken, TokenService } from './token-service.js';

/** How the client authenticates (RFC 6749 §2.3.1); a refusal challenges only client_secret_basic. */
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

/** The scope parameter split once: the named scopes that exist (each once), and the names that do not. */
export interface ScopeRequest {
  scopes: Scope[];
  unknown: string[];
}

/** A token request after parsing: who claims to ask, and the scopes it names (undefined: none). */
export interface TokenRequest {
  credentials: ClientCredentials;
  scope: ScopeRequest | undefined;
}

/** The POST body (RFC 6749 §4.4.2), form-encoded or JSON. */
export interface TokenForm {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
  scope?: string;
}

/** Step: where a POST carries its credentials, the body (client_secret_post) or the Basic header. */
export function authMethodOf(form: TokenForm): ClientAuthMethod {
  return form.client_id !== undefined || form.client_secret !== undefined
    ? 'client_secret_post'
    : 'client_secret_basic';
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

/** Step: the scope parameter, split once; blank or absent names none. */
export function requestedScopes(scope: string | undefined): ScopeRequest | undefined {
  if (scope === undefined || scope.trim() === '') return undefined;
  const names = scope.trim().split(/\s+/);
  return { scopes: [...new Set(names.filter(isScope))], unknown: names.filter((name) => !isScope(name)) };
}

/** Step: parse a POST: the grant type, then the credentials where `method` found them (never both places). */
export function parseGrantRequest(
  form: TokenForm,
  method: ClientAuthMethod,
  authorization: string | undefined,
): TokenRequest {
  if (form.grant_type === undefined) throw new InvalidRequest('grant_type is required');
  if (!(GRANT_TYPES as readonly string[]).includes(form.grant_type)) throw new UnsupportedGrantType();
  if (method === 'client_secret_basic')
    return { credentials: basicCredentials(authorization), scope: requestedScopes(form.scope) };
  if (authorization !== undefined) {
    throw new InvalidRequest('send client credentials either in the Authorization header or in the body, not both');
  }
  if (form.client_id === undefined || form.client_secret === undefined) {
    throw new InvalidClient('both client_id and client_secret are required');
  }
  return {
    credentials: { clientId: form.client_id, clientSecret: form.client_secret },
    scope: requestedScopes(form.scope),
  };
}

export class TokenEndpoint {
  constructor(
    private readonly clients: ClientService,
    private readonly tokens: TokenService,
    private readonly authFailures: AuthFailureLimit,
    /** Refuses the demo client's published secret on a non-loopback bind (demo-secret.ts). */
    readonly demoSecret: DemoSecretPolicy = new DemoSecretPolicy(),
  ) {}

  /** Steps: brute-force allowance → authenticate the client → the scopes must exist → issue. */
  async issueToken(ip: string, { credentials, scope }: TokenRequest, issuer: string): Promise<IssuedToken> {
    const { clientId, clientSecret } = credentials;
    // The brute-force limit is checked before the secret is hashed (see limits/auth-failures.ts).
    const wait = this.authFailures.retryAfter(clientId, ip);
    if (wait > 0) throw new TooManyAttempts(wait);
    this.demoSecret.check(credentials);
    const client = await this.clients.authenticate(clientId, clientSecret);
    if (client === undefined) {
      this.authFailures.recordFailure(clientId, ip);
      throw new InvalidClient('client authentication failed: wrong client id or secret');
    }
    // Said only to whoever holds the right secret: a wrong one above learns nothing of the client.
    if (client === 'revoked')
      throw new InvalidClient('this client was revoked by the operator; it gets no tokens any more');
    if (scope !== undefined && scope.unknown.length > 0) {
      throw new InvalidScope(`unknown scope(s): ${scope.unknown.join(', ')}; accepted: ${SCOPES.join(', ')}`);
    }
    return this.tokens.issue(client, scope?.scopes, issuer);
  }
}
