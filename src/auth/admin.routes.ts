/** Admin: API clients and their credentials. Secrets appear only in the responses that mint them. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { initiatorOf } from '../audit/initiator.js';
import { feeds } from '../http/documented.js';
import {
  ClientStatusSchema,
  ClientViewSchema,
  CreatedClientSchema,
  RotatedWebhookSecret,
  ScopeSchema,
} from './client-schemas.js';
import type { ClientService } from './client-service.js';

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export interface AdminClientRoutesOptions {
  clients: ClientService;
}

export const adminClientRoutes: FastifyPluginAsyncTypebox<AdminClientRoutesOptions> = async (app, { clients }) => {
  const tags = ['admin: clients'];
  app.post(
    '/clients',
    {
      links: feeds([201], { parameter: 'id', field: 'id' }, [
        'adminGetClient',
        'adminRevokeClient',
        'adminResetClientSecret',
        'adminRotateClientWebhookSecret',
        'createAdminClientsPortalLink',
      ]),
      config: { auth: 'admin', role: 'admin', idempotent: true, audit: 'client.created' },
      schema: {
        operationId: 'adminCreateClient',
        tags,
        summary: 'Create an API client; the response is the only time its secrets are shown',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            scopes: Type.Optional(Type.Array(ScopeSchema, { uniqueItems: true })),
          },
          { additionalProperties: false },
        ),
        response: { 201: CreatedClientSchema },
      },
    },
    async (request, reply) => {
      void reply.code(201).header('cache-control', 'no-store');
      return clients.create(request.body, initiatorOf(request));
    },
  );
  app.get(
    '/clients',
    {
      config: { auth: 'admin', role: 'viewer' },
      schema: {
        operationId: 'adminListClients',
        tags,
        summary: 'List API clients, oldest first; `status` keeps only the active or the revoked ones',
        querystring: Type.Object({ status: Type.Optional(ClientStatusSchema) }),
        response: { 200: Type.Object({ data: Type.Array(ClientViewSchema) }) },
      },
    },
    async (request) => ({ data: await clients.list(request.query.status) }),
  );
  app.get(
    '/clients/:id',
    {
      config: { auth: 'admin', role: 'viewer' },
      schema: {
        operationId: 'adminGetClient',
        tags,
        summary: 'One API client',
        params: IdParams,
        response: { 200: ClientViewSchema },
      },
    },
    (request) => clients.get(request.params.id),
  );
  app.post(
    '/clients/:id/secret',
    {
      config: { auth: 'admin', role: 'admin', idempotent: true, audit: 'client.secret.reset' },
      schema: {
        operationId: 'adminResetClientSecret',
        tags,
        summary: 'Reset the client secret: the old secret and every token issued with it stop working',
        params: IdParams,
        response: { 200: Type.Object({ clientSecret: Type.String() }) },
      },
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      return clients.resetSecret(request.params.id, initiatorOf(request));
    },
  );
  app.post(
    '/clients/:id/webhook-secret',
    {
      config: { auth: 'admin', role: 'admin', idempotent: true, audit: 'client.webhook-secret.rotated' },
      schema: {
        operationId: 'adminRotateClientWebhookSecret',
        tags,
        summary: 'Rotate the webhook secret; the previous one keeps signing (webhook-signature) during the overlap',
        params: IdParams,
        response: { 200: RotatedWebhookSecret },
      },
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      return clients.rotateWebhookSecret(request.params.id, initiatorOf(request));
    },
  );
  app.delete(
    '/clients/:id',
    {
      config: { auth: 'admin', role: 'admin', idempotent: true, audit: 'client.revoked' },
      schema: {
        operationId: 'adminRevokeClient',
        tags,
        summary: 'Revoke a client: its tokens and credentials stop working',
        params: IdParams,
      },
    },
    async (request, reply) => {
      await clients.revoke(request.params.id, initiatorOf(request));
      return reply.code(204).send();
    },
  );
};
