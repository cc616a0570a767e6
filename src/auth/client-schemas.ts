/**
 * API clients on the wire (admin API and partner portal): one TypeBox shape each, for validation,
 * serialization, OpenAPI, the client service's types and the browser pages.
 */
import { type Static, Type } from '@sinclair/typebox';
import { SCOPES } from './scopes.js';

export const CLIENT_STATUSES = ['active', 'revoked'] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];
export const ClientStatusSchema = Type.Union(CLIENT_STATUSES.map((status) => Type.Literal(status)));

export const ScopeSchema = Type.Union(SCOPES.map((scope) => Type.Literal(scope)));

export const ClientViewSchema = Type.Object(
  {
    id: Type.String(),
    clientId: Type.String(),
    name: Type.String(),
    scopes: Type.Array(ScopeSchema),
    status: ClientStatusSchema,
    tokensValidAfter: Type.String({ format: 'date-time' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'AdminClient' },
);

/** A new client with its secrets, shown in this answer only. */
export const CreatedClientSchema = Type.Composite(
  [ClientViewSchema, Type.Object({ clientSecret: Type.String(), webhookSecret: Type.String() })],
  { $id: 'AdminCreatedClient' },
);

/** A rotated webhook secret: shown once; the previous one keeps signing until the overlap ends. */
export const RotatedWebhookSecret = Type.Object({
  webhookSecret: Type.String(),
  previousSecretValidUntil: Type.String({ format: 'date-time' }),
});

export type ClientView = Static<typeof ClientViewSchema>;
export type CreatedClient = Static<typeof CreatedClientSchema>;
