/**
 * Access tokens: RFC 9068 JWTs signed with ES256 keys from the database. Verified tokens are cached
 * until they expire so a request pays a map look-up, not a signature check; the client's current
 * state (revoked? secret reset?) is re-read at most every CLIENT_STATE_TTL_MS and at once after a
 * local change.
 */

import { randomUUID, sign } from 'node:crypto';
import { type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { ClientRow } from '../db/schema.js';
import type { ClientService } from './client-service.js';
import { CLIENT_STATE_TTL_MS, type ClientState, type ClientStates } from './client-states.js';
import { InvalidScope } from './oauth-errors.js';
import { parseScopes, type Scope } from './scopes.js';
import { type SigningKey, type SigningKeys, TOKEN_ALG } from './signing-keys.js';
import { tokenProblems } from './token-problems.js';
import { VerifiedTokens } from './verified-tokens.js';

export const TOKEN_AUDIENCE = 'shelfmark-api';
/** How far in the future a token's iat may be: clock skew between the nodes that mint and verify. */
const ISSUED_AT_SKEW_SECONDS = 60;

export interface Principal {
  clientId: string;
  /** clients.id, the internal reference. */
  clientRef: string;
  scopes: Scope[];
  expiresAt: number;
}

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  /** The granted scopes; the token endpoint decides whether the response shows them (RFC 6749 §5.1). */
  scope: string;
}

interface VerifiedToken {
  principal: Principal;
  secretVersion: number;
}

/** A verified token's principal, while its client is neither revoked nor past the token's secret generation. */
function admitted(entry: VerifiedToken, state: ClientState | undefined): Principal {
  if (state === undefined || state.revoked || state.secretVersion !== entry.secretVersion)
    throw tokenProblems.invalid();
  return entry.principal;
}

export class TokenService {
  private readonly verified = new VerifiedTokens<VerifiedToken>();
  /**
   * The configured issuer (PUBLIC_BASE_URL), checked strictly when verifying. Without it every node
   * mints with the origin the request came in on (auth/issuer.ts) and verification accepts any issuer:
   * only this deployment's keys (shared through the database) sign, so the signature already proves
   * that this deployment minted the token, whichever of its origins or nodes did.
   */
  readonly issuer: string | undefined;

  constructor(
    private readonly keys: SigningKeys,
    private readonly clients: ClientService,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'publicBaseUrl' | 'tokenTtlSeconds'>,
    /** Shared with the client service, which forgets a client when its credentials change. */
    private readonly clientStates: ClientStates,
  ) {
    this.issuer = config.publicBaseUrl;
  }

  /**
   * Signs a token for an authenticated client. `issuer` is the origin the request came in on; the
   * configured issuer wins when set. Awaits a key only at the first call of a key's life.
   */
  async issue(
    client: ClientRow,
    requestedScopes?: readonly Scope[],
    issuer = this.issuer ?? 'urn:shelfmark',
  ): Promise<IssuedToken> {
    const allowed = parseScopes(client.scopes);
    // The client's allow-list is the rule for every caller of the service, not only the token endpoint.
    const excess = (requestedScopes ?? []).filter((scope) => !allowed.includes(scope));
    if (excess.length > 0) throw new InvalidScope(`the client may not request: ${excess.join(', ')}`);
    const key = this.keys.signingNow(this.clock.now()) ?? (await this.keys.active());
    return this.signed(client, requestedScopes ?? allowed, issuer, key);
  }

  private signed(client: ClientRow, scopes: readonly Scope[], issuer: string, key: SigningKey): IssuedToken {
    const now = this.clock.now();
    const iat = Math.floor(now / 1000);
    const ttl = this.config.tokenTtlSeconds;
    const claims = {
      client_id: client.client_id,
      scope: scopes.join(' '),
      sv: client.secret_version,
      iss: this.issuer ?? issuer,
      aud: TOKEN_AUDIENCE,
      sub: client.client_id,
      iat,
      exp: iat + ttl,
      jti: randomUUID(),
    };
    // A compact JWS (RFC 7515) signed with node:crypto directly: jose signs through WebCrypto, whose
    // asynchronous job costs more than the signature itself (docs/performance.md#decisions).
    // jose still verifies every token, so an encoding mistake here could not go unnoticed.
    const signingInput = `${key.encodedHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const signature = sign('sha256', Buffer.from(signingInput), { key: key.signingKey, dsaEncoding: 'ieee-p1363' });
    return {
      access_token: `${signingInput}.${signature.toString('base64url')}`,
      token_type: 'Bearer',
      expires_in: ttl,
      scope: claims.scope,
    };
  }

  /**
   * Resolves a bearer token to its principal or refuses it with the matching 401/403 problem.
   * Synchronous when this node verified the token before and its client's state is fresh (every
   * request of a busy client but one each CLIENT_STATE_TTL_MS): the bearer guard then awaits nothing.
   * Its refusals are thrown then, and rejected otherwise.
   */
  authenticate(token: string): Principal | Promise<Principal> {
    const now = this.clock.now();
    const entry = this.verified.get(token);
    return entry === undefined ? this.verifyAndAdmit(token, now) : this.admit(token, entry, now);
  }

  private async verifyAndAdmit(token: string, now: number): Promise<Principal> {
    const entry = await this.verify(token);
    this.verified.keep(token, entry, now);
    return this.admit(token, entry, now);
  }

  private admit(token: string, entry: VerifiedToken, now: number): Principal | Promise<Principal> {
    if (entry.principal.expiresAt <= now) {
      this.verified.forget(token);
      throw tokenProblems.expired();
    }
    const state = this.freshState(entry.principal.clientId, now);
    if (state !== undefined) return admitted(entry, state);
    return this.clientState(entry.principal.clientId, now).then((read) => admitted(entry, read));
  }

  /**
   * A genuine token was minted in the past (up to a little clock skew between nodes) and lives at most
   * TOKEN_TTL_SECONDS; anything else was signed with a stolen or misused key, or by a clock gone wrong.
   */
  private plausibleLifetime(iat: number | undefined, exp: number): boolean {
    if (iat === undefined) return false;
    const nowSeconds = Math.floor(this.clock.now() / 1000);
    return iat <= nowSeconds + ISSUED_AT_SKEW_SECONDS && exp - iat <= this.config.tokenTtlSeconds;
  }

  private async verify(token: string): Promise<VerifiedToken> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        async (header) => {
          const key = header.kid === undefined ? undefined : await this.keys.verificationKey(header.kid);
          if (key === undefined) throw new joseErrors.JWKSNoMatchingKey();
          return key;
        },
        {
          algorithms: [TOKEN_ALG],
          ...(this.issuer === undefined ? {} : { issuer: this.issuer }),
          audience: TOKEN_AUDIENCE,
          typ: 'at+jwt',
          currentDate: new Date(this.clock.now()),
          requiredClaims: ['exp', 'iat', 'sub'],
        },
      ));
    } catch (error) {
      // jose checks the signature before the claims, so an expired token here is a genuine one.
      if (error instanceof joseErrors.JWTExpired) throw tokenProblems.expired();
      throw tokenProblems.invalid();
    }
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
    const secretVersion = typeof payload.sv === 'number' ? payload.sv : undefined;
    if (clientId === undefined || secretVersion === undefined || payload.exp === undefined)
      throw tokenProblems.invalid();
    if (!this.plausibleLifetime(payload.iat, payload.exp)) throw tokenProblems.invalid();
    const state = await this.clientState(clientId, this.clock.now());
    if (state === undefined) throw tokenProblems.invalid();
    return {
      principal: {
        clientId,
        clientRef: state.clientRef,
        scopes: parseScopes(typeof payload.scope === 'string' ? payload.scope : ''),
        expiresAt: payload.exp * 1000,
      },
      secretVersion,
    };
  }

  /**
   * A token checked again against the database, no cached state: for an answer given after a long
   * wait, so a revocation or secret reset on any node during the wait refuses it (throws 401/403).
   */
  async recheck(token: string): Promise<void> {
    const entry = this.verified.get(token) ?? (await this.verify(token));
    if (entry.principal.expiresAt <= this.clock.now()) throw tokenProblems.expired();
    const row = await this.clients.findByClientId(entry.principal.clientId);
    if (row === undefined || row.revoked_at !== null || row.secret_version !== entry.secretVersion)
      throw tokenProblems.invalid();
  }

  private freshState(clientId: string, now: number): ClientState | undefined {
    const cached = this.clientStates.get(clientId);
    return cached !== undefined && now - cached.loadedAt < CLIENT_STATE_TTL_MS && now >= cached.loadedAt
      ? cached
      : undefined;
  }

  private async clientState(clientId: string, now: number): Promise<ClientState | undefined> {
    const cached = this.freshState(clientId, now);
    if (cached !== undefined) return cached;
    const seen = this.clientStates.changes;
    const row = await this.clients.findByClientId(clientId);
    if (row === undefined) {
      this.clientStates.forget(clientId);
      return undefined;
    }
    const state = {
      clientRef: row.id,
      secretVersion: row.secret_version,
      revoked: row.revoked_at !== null,
      loadedAt: now,
    };
    this.clientStates.set(clientId, state, seen);
    return state;
  }
}
