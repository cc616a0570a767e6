/** The token endpoint's and the key documents' schemas: the seed's token answer, RFC 6749's, and its errors. */
import { Type } from '@sinclair/typebox';
import { documentedAs } from '../http/documented.js';
import { TOO_MANY_ATTEMPTS } from '../limits/auth-failures.js';
import { SCOPES } from './scopes.js';
import { TOKEN_AUDIENCE } from './token-service.js';

/** The grants the token endpoint serves (its check, its form's schema and its metadata). */
export const GRANT_TYPES = ['client_credentials'] as const;

const tokenFields = {
  access_token: Type.String({
    description: `A JWT (RFC 9068) with aud "${TOKEN_AUDIENCE}" and the issuer of the metadata document`,
  }),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ examples: [3600] }),
};
/** The seed's shape (GET): exactly these three members. */
export const TokenResponse = Type.Object(tokenFields, { $id: 'TokenResponse' });
/** RFC 6749 §5.1 (POST): `scope` whenever the granted scopes differ from the requested ones. */
export const GrantResponse = Type.Object(
  {
    ...tokenFields,
    scope: Type.Optional(
      Type.String({ description: 'Granted scopes, space-separated; left out when exactly the requested ones' }),
    ),
  },
  { $id: 'GrantResponse' },
);
export const OAuthErrorSchema = Type.Object(
  {
    error: Type.String({
      enum: [
        'invalid_request',
        'invalid_client',
        'invalid_scope',
        'unsupported_grant_type',
        TOO_MANY_ATTEMPTS,
        'server_error',
        'temporarily_unavailable',
      ],
    }),
    error_description: Type.String(),
  },
  { $id: 'OAuthError' },
);
export const oauthErrors = {
  400: {
    ...OAuthErrorSchema,
    description: 'RFC 6749 §5.2: invalid_request (also for any malformed body), invalid_scope, unsupported_grant_type',
  },
  401: {
    ...OAuthErrorSchema,
    description: 'invalid_client: unknown client, wrong secret, revoked client, or no credentials',
  },
  429: {
    ...OAuthErrorSchema,
    description:
      'too_many_attempts: too many failed authentications for this client id from this address, or from this address (Retry-After says when to try again)',
  },
  500: { ...OAuthErrorSchema, description: 'server_error: the service failed (never caused by the request)' },
  503: {
    ...OAuthErrorSchema,
    description: 'temporarily_unavailable: the database cannot be reached; retry after Retry-After seconds',
  },
};

export const TokenForm = Type.Object(
  {
    // The endpoint answers any other grant itself, in RFC 6749's shape (unsupported_grant_type).
    grant_type: documentedAs(Type.String({ examples: ['client_credentials'] }), { enum: [...GRANT_TYPES] }),
    client_id: Type.Optional(Type.String({ description: 'client_secret_post only; otherwise send HTTP Basic' })),
    client_secret: Type.Optional(Type.String({ description: 'client_secret_post only; otherwise send HTTP Basic' })),
    scope: Type.Optional(Type.String({ description: `Space-separated subset of: ${SCOPES.join(' ')}` })),
  },
  { additionalProperties: true },
);

export const Jwks = Type.Object(
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
export const ServerMetadata = Type.Object({
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
