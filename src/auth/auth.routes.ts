/**
 * Token endpoint (GET as the seed documents it, POST as RFC 6749 §4.4 client credentials), JWKS and
 * authorization-server metadata. Errors here use the RFC 6749 JSON shape, which OAuth clients parse.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { issuerFor } from './issuer.js';
import { OAuthError, type OAuthErrorBody } from './oauth-errors.js';
import { SCOPES } from './scopes.js';
import type { SigningKeys } from './signing-keys.js';
import {
  authMethodOf,
  basicCredentials,
  type ClientAuthMethod,
  parseGrantRequest,
  type ScopeRequest,
  type TokenEndpoint,
} from './token-endpoint.js';
import { tokenErrorHandler } from './token-error-handler.js';
import {
  GRANT_TYPES,
  GrantResponse,
  Jwks,
  oauthErrors,
  ServerMetadata,
  TokenForm,
  TokenResponse,
} from './token-schemas.js';
import { type IssuedToken, TOKEN_AUDIENCE } from './token-service.js';

export interface AuthRoutesOptions {
  tokenEndpoint: TokenEndpoint;
  signingKeys: SigningKeys;
  /** PUBLIC_BASE_URL decides the issuer when set. */
  config: Pick<Config, 'publicBaseUrl'>;
}

/** Refusals both token routes share; a URL refused before the route (too long, a NUL) is a 400 on both. */
const TOKEN_FAILURES = {
  400: oauthErrors[400],
  401: oauthErrors[401],
  429: oauthErrors[429],
  500: oauthErrors[500],
  503: oauthErrors[503],
};

/**
 * Runs the token steps and renders an OAuth refusal (RFC 6749 §5.2), with no-store caching either
 * way; any other error goes on to the error handler.
 */
async function answer<T>(
  reply: FastifyReply,
  method: ClientAuthMethod,
  run: () => Promise<T>,
): Promise<T | OAuthErrorBody> {
  void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    // Challenge for the scheme the client used; client_secret_post gets none (a Basic challenge there
    // makes clients such as openid-client hide the invalid_client description).
    if (error.status === 401 && method === 'client_secret_basic') {
      void reply.header('www-authenticate', 'Basic realm="shelfmark", charset="UTF-8"');
    }
    void reply.code(error.status).headers(error.headers);
    return { error: error.code, error_description: error.description };
  }
}

/** The GET answer: the token without its scope (the seed's shape). */
const seedShape = ({ access_token, token_type, expires_in }: IssuedToken) => ({ access_token, token_type, expires_in });

/**
 * RFC 6749 §5.1: `scope` is required when the grant differs from the request, optional when identical
 * (then left out). The service grants exactly the scopes named or refuses, so the grant differs only
 * when none were named.
 */
function grant(token: IssuedToken, requested: ScopeRequest | undefined): IssuedToken | Omit<IssuedToken, 'scope'> {
  if (requested === undefined) return token;
  const { scope: _granted, ...rest } = token;
  return rest;
}

export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesOptions> = async (
  app,
  { tokenEndpoint, signingKeys, config },
) => {
  app.get(
    '/api/auth/token',
    {
      config: { auth: 'client-credentials' },
      errorHandler: tokenErrorHandler,
      schema: {
        operationId: 'getToken',
        tags: ['auth'],
        summary: 'Obtain an access token (HTTP Basic client credentials)',
        description: 'The form of the original API. Unknown query parameters such as `take` are ignored.',
        security: [{ basic: [] }],
        response: { 200: TokenResponse, ...TOKEN_FAILURES },
      },
    },
    (request, reply) =>
      answer(reply, 'client_secret_basic', async () => {
        const credentials = basicCredentials(request.headers.authorization);
        const issued = await tokenEndpoint.issueToken(
          request.ip,
          { credentials, scope: undefined },
          issuerFor(config, request),
        );
        return seedShape(issued);
      }),
  );

  app.post(
    '/api/auth/token',
    {
      // Never replayed: every call mints a new token.
      config: { auth: 'client-credentials', idempotent: false },
      errorHandler: tokenErrorHandler,
      schema: {
        operationId: 'createToken',
        tags: ['auth'],
        summary: 'Obtain an access token (OAuth 2.0 client credentials grant)',
        description:
          'RFC 6749 §4.4. Authenticate with HTTP Basic (client_secret_basic) or with client_id and client_secret in the body ' +
          '(client_secret_post), not both. Send the parameters form-encoded as every OAuth client does; a JSON object is accepted too.',
        security: [{ basic: [] }, {}],
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: TokenForm,
        response: { 200: GrantResponse, ...TOKEN_FAILURES },
      },
    },
    (request, reply) => {
      const method = authMethodOf(request.body);
      return answer(reply, method, async () => {
        const parsed = parseGrantRequest(request.body, method, request.headers.authorization);
        return grant(await tokenEndpoint.issueToken(request.ip, parsed, issuerFor(config, request)), parsed.scope);
      });
    },
  );

  app.get(
    '/.well-known/jwks.json',
    {
      config: { auth: 'public', anyOrigin: true },
      schema: {
        operationId: 'getJwks',
        tags: ['auth'],
        summary: 'Public keys that verify access tokens',
        response: { 200: Jwks },
      },
    },
    async (_request, reply) => {
      void reply.header('cache-control', 'public, max-age=300');
      return signingKeys.jwks();
    },
  );

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      config: { auth: 'public', anyOrigin: true },
      schema: {
        operationId: 'getAuthorizationServerMetadata',
        tags: ['auth'],
        summary: 'Authorization server metadata (RFC 8414)',
        description:
          'The issuer is PUBLIC_BASE_URL, or the origin this request came in on (X-Forwarded-Proto/Host count only from TRUSTED_PROXIES). ' +
          `Access tokens carry this issuer and the audience named in \`audience\` ("${TOKEN_AUDIENCE}").`,
        response: { 200: ServerMetadata },
      },
    },
    async (request) => {
      const origin = issuerFor(config, request);
      return {
        issuer: origin,
        token_endpoint: `${origin}/api/auth/token`,
        jwks_uri: `${origin}/.well-known/jwks.json`,
        grant_types_supported: [...GRANT_TYPES],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: [...SCOPES],
        // Client credentials uses no authorization endpoint, so no response type is supported.
        response_types_supported: [],
        service_documentation: `${origin}/docs`,
        audience: TOKEN_AUDIENCE,
      };
    },
  );
};
