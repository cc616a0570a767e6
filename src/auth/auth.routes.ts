/**
 * Token endpoint (GET as the seed documents it, POST as RFC 6749 §4.4 client credentials), JWKS and
 * authorization-server metadata. Errors here use the RFC 6749 JSON shape, which OAuth clients parse.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { issuerFor } from './issuer.js';
import { OAuthError, type OAuthErrorBody } from './oauth-errors.js';
import { SCOPES } from './scopes.js';
import type { SigningKeys } from './signing-keys.js';
import { basicCredentials, parseGrantRequest, type TokenEndpoint } from './token-endpoint.js';
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

/** A POST client sent its credentials in the body (client_secret_post). */
function usedPost(request: FastifyRequest): boolean {
  const body = request.body;
  return (
    request.method === 'POST' &&
    typeof body === 'object' &&
    body !== null &&
    ('client_id' in body || 'client_secret' in body)
  );
}

/** An OAuth refusal (RFC 6749 §5.2) as the answer; any other error goes on to the error handler. */
function refusal(request: FastifyRequest, reply: FastifyReply, error: unknown): OAuthErrorBody {
  if (!(error instanceof OAuthError)) throw error;
  // RFC 6749 §5.2: challenge for the scheme the client used; client_secret_post gets none (a Basic
  // challenge there makes clients such as openid-client hide the invalid_client description).
  if (error.status === 401 && (request.headers.authorization !== undefined || !usedPost(request))) {
    void reply.header('www-authenticate', 'Basic realm="shelfmark", charset="UTF-8"');
  }
  void reply.code(error.status).headers(error.headers);
  return { error: error.code, error_description: error.description };
}

/**
 * Runs a step of the pipeline and renders its OAuth refusal with no-store caching. Synchronous when
 * the step is (the client's row and the signing key in memory): no promise on the hot path.
 */
function respond<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  run: () => T | Promise<T>,
): T | OAuthErrorBody | Promise<T | OAuthErrorBody> {
  void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  try {
    const result = run();
    return result instanceof Promise ? result.catch((error: unknown) => refusal(request, reply, error)) : result;
  } catch (error) {
    return refusal(request, reply, error);
  }
}

/** The GET answer: the token without its scope (the seed's shape). */
const seedShape = ({ access_token, token_type, expires_in }: IssuedToken) => ({ access_token, token_type, expires_in });

/** RFC 6749 §5.1: `scope` is required when the grant differs from the request, optional when identical (then left out). */
function grant(token: IssuedToken, requested: string | undefined): IssuedToken | Omit<IssuedToken, 'scope'> {
  const asked = [
    ...new Set(
      (requested ?? '')
        .trim()
        .split(/\s+/)
        .filter((name) => name !== ''),
    ),
  ]
    .sort()
    .join(' ');
  if (asked !== '' && asked === token.scope.split(' ').sort().join(' ')) {
    const { scope: _granted, ...rest } = token;
    return rest;
  }
  return token;
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
      respond(request, reply, () => {
        const credentials = basicCredentials(request.headers.authorization);
        const issued = tokenEndpoint.issueToken(
          request.ip,
          { credentials, scope: undefined },
          issuerFor(config, request),
        );
        return issued instanceof Promise ? issued.then(seedShape) : seedShape(issued);
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
    (request, reply) =>
      respond(request, reply, () => {
        const parsed = parseGrantRequest(request.body, request.headers.authorization);
        const issued = tokenEndpoint.issueToken(request.ip, parsed, issuerFor(config, request));
        return issued instanceof Promise
          ? issued.then((token) => grant(token, parsed.scope))
          : grant(issued, parsed.scope);
      }),
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
