/**
 * The operators' OpenID Connect provider as openid-client (v6) sees it: discovery once (retried on
 * the next sign-in after a failure), the authorization URL with state, nonce and a PKCE challenge,
 * the code exchange with every check the library makes (state, issuer, nonce, PKCE, ID token
 * signature and audience), and the provider's logout URL (RP-initiated logout) when it has one.
 */
import * as oidc from 'openid-client';
import type { Config } from '../config.js';

export type OidcSettings = Pick<
  Config,
  | 'oidcIssuer'
  | 'oidcClientId'
  | 'oidcClientSecret'
  | 'oidcScopes'
  | 'oidcRedirectUri'
  | 'oidcDisplayName'
  | 'publicBaseUrl'
>;

/** What a sign-in keeps between the redirect and the callback. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface ProviderIdentity {
  /** The ID token's claims, completed from the userinfo endpoint (providers that keep claims out of it). */
  claims: Record<string, unknown> & { sub: string; iss: string };
  idToken: string;
}

const isLoopbackHttp = (url: URL): boolean =>
  url.protocol === 'http:' && /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname);

export class OidcClient {
  private configuration: Promise<oidc.Configuration> | undefined;
  readonly issuer: string;
  readonly redirectUri: string;

  constructor(private readonly settings: OidcSettings & { oidcIssuer: string; oidcClientId: string }) {
    this.issuer = settings.oidcIssuer;
    // Config validation (config/oidc-fields.ts) makes sure one of the two is set.
    this.redirectUri =
      settings.oidcRedirectUri ?? `${(settings.publicBaseUrl ?? '').replace(/\/$/, '')}/dashboard/login/oidc/callback`;
  }

  /** The provider's name for "Sign in with …": OIDC_DISPLAY_NAME, else the issuer's host. */
  get issuerName(): string {
    return this.settings.oidcDisplayName ?? new URL(this.issuer).host;
  }

  /**
   * The origin the provider sends the browser back to: a sign-in must start there, for its cookie is
   * set on the host that answers the start and must come back with the callback.
   */
  get origin(): string {
    return new URL(this.redirectUri).origin;
  }

  private config(): Promise<oidc.Configuration> {
    if (this.configuration === undefined) {
      const issuer = new URL(this.issuer);
      const { oidcClientId: clientId, oidcClientSecret: secret } = this.settings;
      const insecure = isLoopbackHttp(issuer) ? { execute: [oidc.allowInsecureRequests] } : {};
      this.configuration = oidc
        .discovery(issuer, clientId, secret, secret === undefined ? oidc.None() : undefined, insecure)
        .catch((error: unknown) => {
          this.configuration = undefined; // the next sign-in tries again
          throw error;
        });
    }
    return this.configuration;
  }

  async begin(): Promise<{ url: URL; pending: PendingSignIn }> {
    const config = await this.config();
    const pending = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: this.settings.oidcScopes,
      response_type: 'code',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, pending };
  }

  /** Exchanges the callback's code; throws the library's error when any check fails. */
  async finish(query: string, pending: PendingSignIn): Promise<ProviderIdentity> {
    const config = await this.config();
    // The registered redirect URI with the query the browser brought: behind a proxy the request's
    // own URL may differ, and the token request must name exactly the registered one.
    const currentUrl = new URL(`${this.redirectUri}${query === '' ? '' : `?${query}`}`);
    const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (idClaims === undefined || tokens.id_token === undefined) throw new Error('the provider sent no ID token');
    let claims: Record<string, unknown> = { ...idClaims };
    if (config.serverMetadata().userinfo_endpoint !== undefined) {
      // Many providers (and oidc-provider by default) put the scope claims in userinfo only.
      const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      claims = { ...userinfo, ...claims };
    }
    return { claims: { ...claims, sub: idClaims.sub, iss: idClaims.iss }, idToken: tokens.id_token };
  }

  /** The provider's logout URL for a session (RP-initiated logout), or undefined when it has none. */
  async logoutUrl(idToken: string | null, postLogoutRedirectUri: string): Promise<string | undefined> {
    const config = await this.config().catch(() => undefined);
    if (config?.serverMetadata().end_session_endpoint === undefined) return undefined;
    return oidc
      .buildEndSessionUrl(config, {
        post_logout_redirect_uri: postLogoutRedirectUri,
        ...(idToken === null ? {} : { id_token_hint: idToken }),
      })
      .toString();
  }
}
