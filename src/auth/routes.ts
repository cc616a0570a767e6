/**
 * Token endpoint (GET as the seed documents it, POST as RFC 6749 §4.4 client credentials), JWKS and
 * authorization-server metadata. Errors here use the RFC 6749 JSON shape, which OAuth clients parse.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type Problem, problemBody } from '../errors.js';
import type { Services } from '../services.js';
import { toProblem } from '../to-problem.js';
import { parseBasic } from './basic.js';
import { isScope, SCOPES, type Scope } from './scopes.js';
import type { IssuedToken } from './token-service.js';

const TokenResponse = Type.Object(
  { access_token: Type.String(), token_type: Type.Literal('Bearer'), expires_in: Type.Integer({ examples: [3600] }) },
  { $id: 'TokenResponse' },
);
const OAuthError = Type.Object({ error: Type.String(), error_description: Type.String() }, { $id: 'OAuthError' });

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
    grant_type: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

function requestedScopes(scope: string | undefined): Scope[] | undefined {
  if (scope === undefined || scope.trim() === '') return undefined;
  const names = scope.trim().split(/\s+/);
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) throw new OAuthFailure(400, 'invalid_scope', `unknown scope(s): ${unknown.join(', ')}; accepted: ${SCOPES.join(', ')}`);
  return [...new Set(names.filter(isScope))];
}

export const authRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    // Errors raised before the handler (unparseable or oversized body, wrong content type) answer in the
    // RFC 6749 shape too: OAuth clients parse it, and the 400 response schema requires it (a problem
    // document there failed serialisation and became a 500, found by test/reliability/fuzz.test.ts).
    app.setErrorHandler((error: FastifyError | Problem, request, reply) => {
      const problem = toProblem(error);
      if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
      // The discovery documents beside it answer problems like the rest of the API.
      if (request.routeOptions.url !== '/api/auth/token') {
        void reply.code(problem.status).headers(problem.headers).type('application/problem+json');
        return problemBody(problem, request.id);
      }
      const code = problem.status === 503 ? 'temporarily_unavailable' : problem.status >= 500 ? 'server_error' : 'invalid_request';
      void reply.code(problem.status).headers(problem.headers).header('cache-control', 'no-store').type('application/json; charset=utf-8');
      return { error: code, error_description: problem.detail ?? problem.message };
    });

    const respond = async (
      reply: FastifyReply,
      run: () => Promise<IssuedToken>,
    ): Promise<IssuedToken | { error: string; error_description: string }> => {
      void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      try {
        return await run();
      } catch (error) {
        if (!(error instanceof OAuthFailure)) throw error;
        if (error.status === 401) void reply.header('www-authenticate', 'Basic realm="shelfmark", charset="UTF-8"');
        void reply.code(error.status).headers(error.headers);
        return { error: error.error, error_description: error.description };
      }
    };

    const issueFor = async (request: FastifyRequest, clientId: string, clientSecret: string, scope: string | undefined): Promise<IssuedToken> => {
      // The brute-force limit is checked before the secret is hashed (see limits/auth-failures.ts).
      const wait = services.authFailures.retryAfter(clientId, request.ip);
      if (wait > 0) {
        throw new OAuthFailure(429, 'too_many_attempts', `too many failed authentications for this client from this address; retry after ${wait} s`, {
          'retry-after': String(wait),
        });
      }
      const client = await services.clients.authenticate(clientId, clientSecret);
      if (client === undefined) {
        services.authFailures.recordFailure(clientId, request.ip);
        throw new OAuthFailure(401, 'invalid_client', 'client authentication failed: wrong client id or secret');
      }
      const scopes = requestedScopes(scope);
      const allowed = client.scopes.split(' ');
      const excess = (scopes ?? []).filter((name) => !allowed.includes(name));
      if (excess.length > 0) throw new OAuthFailure(400, 'invalid_scope', `the client may not request: ${excess.join(', ')}`);
      return services.tokens.issue(client, scopes);
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
        schema: {
          tags: ['auth'],
          summary: 'Obtain an access token (HTTP Basic client credentials)',
          description: 'Unknown query parameters such as `take` are ignored.',
          security: [{ basic: [] }],
          response: { 200: TokenResponse, 400: OAuthError, 401: OAuthError, 429: OAuthError },
        },
      },
      (request, reply) =>
        respond(reply, async () => {
          const { clientId, clientSecret } = basicOrFail(request);
          return issueFor(request, clientId, clientSecret, undefined);
        }),
    );

    app.post(
      '/api/auth/token',
      {
        schema: {
          tags: ['auth'],
          summary: 'Obtain an access token (OAuth 2.0 client credentials grant)',
          security: [{ basic: [] }, {}],
          body: TokenForm,
          response: { 200: TokenResponse, 400: OAuthError, 401: OAuthError, 429: OAuthError },
        },
      },
      (request, reply) =>
        respond(reply, async () => {
          const form = request.body;
          if (form.grant_type === undefined) throw new OAuthFailure(400, 'invalid_request', 'grant_type is required');
          if (form.grant_type !== 'client_credentials') {
            throw new OAuthFailure(400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
          }
          const inBody = form.client_id !== undefined || form.client_secret !== undefined;
          if (inBody && request.headers.authorization !== undefined) {
            throw new OAuthFailure(400, 'invalid_request', 'send client credentials either in the Authorization header or in the body, not both');
          }
          if (inBody) {
            if (form.client_id === undefined || form.client_secret === undefined) {
              throw new OAuthFailure(401, 'invalid_client', 'both client_id and client_secret are required');
            }
            return issueFor(request, form.client_id, form.client_secret, form.scope);
          }
          const { clientId, clientSecret } = basicOrFail(request);
          return issueFor(request, clientId, clientSecret, form.scope);
        }),
    );

    app.get('/.well-known/jwks.json', { schema: { tags: ['auth'], summary: 'Public keys that verify access tokens' } }, async (_request, reply) => {
      void reply.header('cache-control', 'public, max-age=300');
      return services.signingKeys.jwks();
    });

    app.get(
      '/.well-known/oauth-authorization-server',
      { schema: { tags: ['auth'], summary: 'Authorization server metadata (RFC 8414)' } },
      async (request) => {
        const origin = services.deps.config.publicBaseUrl ?? `${request.protocol}://${request.host}`;
        return {
          issuer: services.tokens.issuer,
          token_endpoint: `${origin}/api/auth/token`,
          jwks_uri: `${origin}/.well-known/jwks.json`,
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          scopes_supported: [...SCOPES],
          response_types_supported: ['token'],
          service_documentation: `${origin}/docs`,
        };
      },
    );
  };
