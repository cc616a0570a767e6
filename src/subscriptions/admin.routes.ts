/**
 * Admin: every client's webhook subscriptions, registering one for a client, and re-enabling (and
 * recovering) one that delivery disabled.
 */

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { initiatorOf } from '../audit/initiator.js';
import { feeds } from '../http/documented.js';
import { SUBSCRIPTION_STATUSES } from './model.js';
import type { SubscriptionRecovery } from './recovery.js';
import {
  AdminCreateSubscriptionBody,
  AdminSubscriptionSchema,
  pageOf,
  SubscriptionIdParams,
  SubscriptionPageQuerySchema,
} from './schemas.js';
import type { SubscriptionService } from './service.js';

const AdminListQuery = Type.Composite([
  SubscriptionPageQuerySchema,
  Type.Object({
    clientId: Type.Optional(
      Type.String({ maxLength: 64, description: 'The client id (cli_...) or its public clientId (smc_...)' }),
    ),
    status: Type.Optional(Type.Union(SUBSCRIPTION_STATUSES.map((status) => Type.Literal(status)))),
  }),
]);

export interface AdminSubscriptionRoutesOptions {
  subscriptions: SubscriptionService;
  recovery: SubscriptionRecovery;
}

export const adminSubscriptionRoutes: FastifyPluginAsyncTypebox<AdminSubscriptionRoutesOptions> = async (
  app,
  { subscriptions, recovery },
) => {
  const tags = ['admin: subscriptions'];

  app.get(
    '/subscriptions',
    {
      config: { auth: 'admin', role: 'viewer' },
      schema: {
        operationId: 'adminListSubscriptions',
        tags,
        summary: 'Subscriptions across all clients, oldest first, with their client',
        querystring: AdminListQuery,
        response: { 200: pageOf(AdminSubscriptionSchema) },
      },
    },
    (request) => {
      const { clientId, status, limit, starting_after: startingAfter } = request.query;
      return subscriptions.adminList({ client: clientId, status }, { limit, startingAfter });
    },
  );

  app.post(
    '/subscriptions',
    {
      links: feeds([200, 201], { parameter: 'id', field: 'id' }, [
        'adminGetSubscription',
        'adminEnableSubscription',
        'adminRecoverSubscription',
        'adminRecoverFailedSubscription',
        'adminReplaySubscription',
      ]),
      config: {
        auth: 'admin',
        role: 'admin',
        idempotent: true,
        audit: 'subscription.created',
        problems: [
          'not-found',
          'invalid-ean',
          'conflict',
          'blocked-address',
          'unresolvable-host',
          'subscription-limit',
        ],
      },
      schema: {
        operationId: 'adminCreateSubscription',
        tags,
        summary: 'Register a webhook subscription for a client',
        description:
          "The client's own registration (POST /api/lml/v1/subscriptions) made by the operator: the same validation, " +
          'address policy, per-client cap and filter rules; 201 when created, 200 with the existing one when the client ' +
          'already has this notificationUrl and event. 404 for an unknown client, 409 for a revoked one.',
        body: AdminCreateSubscriptionBody,
        response: { 200: AdminSubscriptionSchema, 201: AdminSubscriptionSchema },
      },
    },
    async (request, reply) => {
      const { clientId, ...input } = request.body;
      const { subscription, created } = await subscriptions.adminCreate(clientId, input, initiatorOf(request));
      void reply.code(created ? 201 : 200).header('location', `/api/admin/v1/subscriptions/${subscription.id}`);
      return subscription;
    },
  );

  app.get(
    '/subscriptions/:id',
    {
      config: { auth: 'admin', role: 'viewer' },
      schema: {
        operationId: 'adminGetSubscription',
        tags,
        summary: 'One subscription of any client',
        params: SubscriptionIdParams,
        response: { 200: AdminSubscriptionSchema },
      },
    },
    (request) => subscriptions.adminGet(request.params.id),
  );

  app.post(
    '/subscriptions/:id/enable',
    {
      config: {
        auth: 'admin',
        role: 'support',
        idempotent: true,
        problems: ['client-revoked'],
        audit: 'subscription.reenabled',
      },
      schema: {
        operationId: 'adminEnableSubscription',
        tags,
        summary: 'Re-enable a subscription that delivery disabled (410 Gone or too long failing)',
        params: SubscriptionIdParams,
        response: { 200: AdminSubscriptionSchema },
      },
    },
    async (request) => {
      await subscriptions.reenable(request.params.id, initiatorOf(request));
      return subscriptions.adminGet(request.params.id);
    },
  );

  app.post(
    '/subscriptions/:id/recover-failed',
    {
      config: {
        auth: 'admin',
        role: 'support',
        idempotent: true,
        problems: ['client-revoked'],
        audit: 'subscription.recovered',
      },
      schema: {
        operationId: 'adminRecoverFailedSubscription',
        tags,
        summary: 'Re-enable a failing or disabled subscription and re-send what failed in its current failing period',
        description:
          'Like /recover with `since` chosen for you: the start of the failing period less the whole retry schedule ' +
          '(a delivery created that long before it may have failed within it).',
        params: SubscriptionIdParams,
        response: {
          200: Type.Object(
            { requeued: Type.Integer(), since: Type.String({ format: 'date-time' }) },
            { additionalProperties: false },
          ),
        },
      },
    },
    (request) => recovery.recover(request.params.id, initiatorOf(request)),
  );
};
