/**
 * Token endpoint (GET as the seed documents it, POST as RFC 6749 §4.4 client credentials), JWKS and
 * authorization-server metadata. Errors here use the RFC 6749 JSON shape, which OAuth clients parse.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from '../errors.js';
import type { Services } from '../services.js';
import { toProblem } from '../to-problem.js';
import { parseBasic } from './basic.js';
import { isScope, SCOPES, type Scope } from './scopes.js';
import { issuerFor } from './issuer.js';
import { type IssuedToken, TOKEN_AUDIENCE } from './token-service.js';

const tokenFields = {
  access_token: Type.String({
    description: `A JWT (RFC 9068) with aud "${TOKEN_AUDIENCE}" and the issuer of the metadata document`,
  }),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ examples: [3600] }),
};
/** The seed's shape (GET): exactly these three members. */
const TokenResponse = Type.Object(tokenFields, { $id: 'TokenResponse' });
/** RFC 6749 §5.1 (POST): `scope` whenever the granted scopes differ from the requested ones. */
const GrantResponse = Type.Object(
  {
    ...tokenFields,
    scope: Type.Optional(
      Type.String({ description: 'Granted scopes, space-separated; left out when exactly the requested ones' }),
    ),
  },
  { $id: 'GrantResponse' },
);
const OAuthError = Type.Object(
  {
    error: Type.String({
      enum: [
        'invalid_request',
        'invalid_client',
        'invalid_scope',
        'unsupported_grant_type',
        'too_many_attempts',
        'server_error',
        'temporarily_unavailable',
      ],
    }),
    error_description: Type.String(),
  },
  { $id: 'OAuthError' },
);
const oauthErrors = {
  400: {
    ...OAuthError,
    description: 'RFC 6749 §5.2: invalid_request (also for any malformed body), invalid_scope, unsupported_grant_type',
  },
  401: {
    ...OAuthError,
    description: 'invalid_client: unknown client, wrong secret, revoked client, or no credentials',
  },
  429: {
    ...OAuthError,
    description:
      'too_many_attempts: too many failed authentications for this client id from this address, or from this address (Retry-After says when to try again)',
  },
  500: { ...OAuthError, description: 'server_error: the service failed (never caused by the request)' },
  503: {
    ...OAuthError,
    description: 'temporarily_unavailable: the database cannot be reached; retry after Retry-After seconds',
  },
};

class OAuthFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

const TokenForm = Type.Object(
  {
    grant_type: Type.Optional(Type.String({ examples: ['client_credentials'] })),
    client_id: Type.Optional(Type.String({ description: 'client_secret_post only; otherwise send HTTP Basic' })),
    client_secret: Type.Optional(Type.String({ description: 'client_secret_post only; otherwise send HTTP Basic' })),
    scope: Type.Optional(Type.String({ description: `Space-separated subset of: ${SCOPES.join(' ')}` })),
  },
  { additionalProperties: true },
);

/**
 * Every failure before or around the handler (no body, wrong media type, bad JSON, a field of the
 * wrong type, a repeated form field, too large) is the client's fault: RFC 6749 invalid_request, 400.
 * Only a failure of the service itself is a 500, in the same shape so OAuth clients can read it.
 */
function tokenErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): OAuthErrorBody {
  void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  // Our own refusals before the handler (URL limits, NUL) and an unreachable database arrive as Problems.
  const problem: Problem = error instanceof Problem ? error : toProblem(error);
  if (problem.status === 503) {
    void reply.code(503).headers(problem.headers);
    return { error: 'temporarily_unavailable', error_description: problem.detail ?? problem.message };
  }
  if (error instanceof Problem && problem.status < 500) {
    void reply.code(400);
    return { error: 'invalid_request', error_description: problem.detail ?? problem.message };
  }
  const status = error.statusCode ?? 500;
  if (error.validation !== undefined || (status >= 400 && status < 500) || error instanceof SyntaxError) {
    void reply.code(400);
    return { error: 'invalid_request', error_description: describeMalformed(error) };
  }
  request.log.error({ err: error }, 'token request failed');
  void reply.code(500);
  return {
    error: 'server_error',
    error_description: 'an unexpected error occurred; quote the x-request-id header when reporting it',
  };
}

function describeMalformed(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'send the parameters as application/x-www-form-urlencoded (RFC 6749 §4.4.2)';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'the body is not valid JSON; send application/x-www-form-urlencoded';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'the request body is too large';
    default:
      break;
  }
  if (error.validation !== undefined) {
    const issue = error.validation[0];
    if (issue === undefined || issue.instancePath === '')
      return 'send grant_type=client_credentials as an application/x-www-form-urlencoded body';
    return `${issue.instancePath.slice(1)} ${issue.message ?? 'is invalid'} (each parameter once, as text)`;
  }
  return 'the request could not be parsed';
}

interface OAuthErrorBody {
  error: string;
  error_description: string;
}

function requestedScopes(scope: string | undefined): Scope[] | undefined {
  if (scope === undefined || scope.trim() === '') return undefined;
  const names = scope.trim().split(/\s+/);
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0)
    throw new OAuthFailure(
      400,
      'invalid_scope',
      `unknown scope(s): ${unknown.join(', ')}; accepted: ${SCOPES.join(', ')}`,
    );
  return [...new Set(names.filter(isScope))];
}

const Jwks = Type.Object(
  {
    keys: Type.Array(
      Type.Object(
        {
          kty: Type.Optional(Type.String()),
          kid: Type.Optional(Type.String()),
          alg: Type.Optional(Type.String()),
          use: Type.Optional(Type.String()),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { description: 'JSON Web Key Set (RFC 7517); public keys only' },
);
const ServerMetadata = Type.Object({
  issuer: Type.String({ format: 'uri' }),
  token_endpoint: Type.String({ format: 'uri' }),
  jwks_uri: Type.String({ format: 'uri' }),
  grant_types_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  response_types_supported: Type.Array(Type.String()),
  service_documentation: Type.String({ format: 'uri' }),
  audience: Type.String({
    description: 'The `aud` of every access token (an extension member; RFC 8414 names none for it)',
  }),
});

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

export const authRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    const respond = async <T>(
      request: FastifyRequest,
      reply: FastifyReply,
      run: () => Promise<T>,
    ): Promise<T | OAuthErrorBody> => {
      void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      try {
        return await run();
      } catch (error) {
        if (!(error instanceof OAuthFailure)) throw error;
        // RFC 6749 §5.2: challenge for the scheme the client used; client_secret_post gets none (a Basic
        // challenge there makes clients such as openid-client hide the invalid_client description).
        if (error.status === 401 && (request.headers.authorization !== undefined || !usedPost(request))) {
          void reply.header('www-authenticate', 'Basic realm="shelfmark", charset="UTF-8"');
        }
        void reply.code(error.status).headers(error.headers);
        return { error: error.error, error_description: error.description };
      }
    };

    const issueFor = async (
      request: FastifyRequest,
      clientId: string,
      clientSecret: string,
      scope: string | undefined,
    ): Promise<IssuedToken> => {
      // The brute-force limit is checked before the secret is hashed (see limits/auth-failures.ts).
      const wait = services.authFailures.retryAfter(clientId, request.ip);
      if (wait > 0) {
        throw new OAuthFailure(
          429,
          'too_many_attempts',
          `too many failed authentications for this client from this address; retry after ${wait} s`,
          {
            'retry-after': String(wait),
          },
        );
      }
      const client = await services.clients.authenticate(clientId, clientSecret);
      if (client === undefined) {
        services.authFailures.recordFailure(clientId, request.ip);
        throw new OAuthFailure(401, 'invalid_client', 'client authentication failed: wrong client id or secret');
      }
      const scopes = requestedScopes(scope);
      const allowed = client.scopes.split(' ');
      const excess = (scopes ?? []).filter((name) => !allowed.includes(name));
      if (excess.length > 0)
        throw new OAuthFailure(400, 'invalid_scope', `the client may not request: ${excess.join(', ')}`);
      return services.tokens.issue(client, scopes, issuerFor(services.deps.config, request));
    };

    const basicOrFail = (request: FastifyRequest) => {
      const credentials = parseBasic(request.headers.authorization);
      if (credentials === undefined) {
        throw new OAuthFailure(
          401,
          'invalid_client',
          request.headers.authorization === undefined
            ? 'send Authorization: Basic base64(clientId:clientSecret)'
            : 'the Authorization header is not a valid Basic credential',
        );
      }
      return credentials;
    };

    app.get(
      '/api/auth/token',
      {
        errorHandler: tokenErrorHandler,
        schema: {
          tags: ['auth'],
          summary: 'Obtain an access token (HTTP Basic client credentials)',
          description: 'The form of the original API. Unknown query parameters such as `take` are ignored.',
          security: [{ basic: [] }],
          response: {
            200: TokenResponse,
            401: oauthErrors[401],
            429: oauthErrors[429],
            500: oauthErrors[500],
            503: oauthErrors[503],
          },
        },
      },
      (request, reply) =>
        respond(request, reply, async () => {
          const { clientId, clientSecret } = basicOrFail(request);
          const { access_token, token_type, expires_in } = await issueFor(request, clientId, clientSecret, undefined);
          return { access_token, token_type, expires_in };
        }),
    );

    app.post(
      '/api/auth/token',
      {
        errorHandler: tokenErrorHandler,
        schema: {
          tags: ['auth'],
          summary: 'Obtain an access token (OAuth 2.0 client credentials grant)',
          description:
            'RFC 6749 §4.4. Authenticate with HTTP Basic (client_secret_basic) or with client_id and client_secret in the body ' +
            '(client_secret_post), not both. Send the parameters form-encoded as every OAuth client does; a JSON object is accepted too.',
          security: [{ basic: [] }, {}],
          consumes: ['application/x-www-form-urlencoded', 'application/json'],
          body: TokenForm,
          response: {
            200: GrantResponse,
            400: oauthErrors[400],
            401: oauthErrors[401],
            429: oauthErrors[429],
            500: oauthErrors[500],
            503: oauthErrors[503],
          },
        },
      },
      (request, reply) =>
        respond(request, reply, async () => {
          const form = request.body;
          if (form.grant_type === undefined) throw new OAuthFailure(400, 'invalid_request', 'grant_type is required');
          if (form.grant_type !== 'client_credentials') {
            throw new OAuthFailure(400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
          }
          const inBody = form.client_id !== undefined || form.client_secret !== undefined;
          if (inBody && request.headers.authorization !== undefined) {
            throw new OAuthFailure(
              400,
              'invalid_request',
              'send client credentials either in the Authorization header or in the body, not both',
            );
          }
          if (inBody) {
            if (form.client_id === undefined || form.client_secret === undefined) {
              throw new OAuthFailure(401, 'invalid_client', 'both client_id and client_secret are required');
            }
            return grant(await issueFor(request, form.client_id, form.client_secret, form.scope), form.scope);
          }
          const { clientId, clientSecret } = basicOrFail(request);
          return grant(await issueFor(request, clientId, clientSecret, form.scope), form.scope);
        }),
    );

    app.get(
      '/.well-known/jwks.json',
      { schema: { tags: ['auth'], summary: 'Public keys that verify access tokens', response: { 200: Jwks } } },
      async (_request, reply) => {
        void reply.header('cache-control', 'public, max-age=300');
        return services.signingKeys.jwks();
      },
    );

    app.get(
      '/.well-known/oauth-authorization-server',
      {
        schema: {
          tags: ['auth'],
          summary: 'Authorization server metadata (RFC 8414)',
          description:
            'The issuer is PUBLIC_BASE_URL, or the origin this request came in on (X-Forwarded-Proto/Host count only from TRUSTED_PROXIES). ' +
            `Access tokens carry this issuer and the audience named in \`audience\` ("${TOKEN_AUDIENCE}").`,
          response: { 200: ServerMetadata },
        },
      },
      async (request) => {
        const origin = issuerFor(services.deps.config, request);
        return {
          issuer: origin,
          token_endpoint: `${origin}/api/auth/token`,
          jwks_uri: `${origin}/.well-known/jwks.json`,
          grant_types_supported: ['client_credentials'],
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
