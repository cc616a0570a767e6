/**
 * Public subscription API (scope webhooks:manage): register, list, read, delete and re-enable a
 * client's own webhook subscriptions, and rotate the client's webhook secret.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf, requireScope } from '../auth/guard.js';
import type { Services } from '../services.js';
import {
  CreateSubscriptionBody,
  PageQuerySchema,
  pageOf,
  SubscriptionIdParams,
  SubscriptionSchema,
} from './schemas.js';

const BASE = '/api/lml/v1/subscriptions';

export const subscriptionRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    const preHandler = requireScope(services.tokens, 'webhooks:manage', services.rateLimit);
    const tags = ['subscriptions'];
    const security = [{ bearer: [] }];

    app.post(
      BASE,
      {
        preHandler,
        schema: {
          tags,
          security,
          summary: 'Register a webhook subscription',
          description:
            'Answers 201 with a Location header. Registering the same notificationUrl and event again (either spelling) ' +
            'is idempotent: 200 with the existing subscription. An unknown event is a 400 listing acceptedEvents; a host ' +
            'that is or resolves to a loopback, private, link-local or otherwise non-public address is a 422 blocked-address; ' +
            'a host that does not resolve is a 422 unresolvable-host.',
          body: CreateSubscriptionBody,
          response: { 200: SubscriptionSchema, 201: SubscriptionSchema },
        },
      },
      async (request, reply) => {
        const { subscription, created } = await services.subscriptions.create(
          principalOf(request).clientRef,
          request.body,
        );
        void reply.code(created ? 201 : 200).header('location', `${BASE}/${subscription.id}`);
        return subscription;
      },
    );

    app.get(
      BASE,
      {
        preHandler,
        schema: {
          tags,
          security,
          summary: "The caller's subscriptions, oldest first",
          description:
            'Cursor paging: pass the last id of a page as starting_after to get the next one while has_more is true.',
          querystring: PageQuerySchema,
          response: { 200: pageOf(SubscriptionSchema) },
        },
      },
      (request) =>
        services.subscriptions.list(principalOf(request).clientRef, {
          limit: request.query.limit,
          startingAfter: request.query.starting_after,
        }),
    );

    app.get(
      `${BASE}/:id`,
      {
        preHandler,
        schema: {
          tags,
          security,
          summary: 'One of your subscriptions',
          description: "Another client's id answers 404.",
          params: SubscriptionIdParams,
          response: { 200: SubscriptionSchema },
        },
      },
      (request) => services.subscriptions.get(principalOf(request).clientRef, request.params.id),
    );

    app.delete(
      `${BASE}/:id`,
      {
        preHandler,
        schema: {
          tags,
          security,
          summary: 'Delete a subscription; its pending deliveries are dropped',
          params: SubscriptionIdParams,
          response: { 204: Type.Null({ description: 'Deleted' }) },
        },
      },
      async (request, reply) => {
        await services.subscriptions.delete(principalOf(request).clientRef, request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      `${BASE}/:id/enable`,
      {
        preHandler,
        schema: {
          tags,
          security,
          summary: 'Re-enable a disabled subscription after fixing the receiver',
          description:
            'Clears disabledReason and the failure history. Enabling an active subscription changes nothing.',
          params: SubscriptionIdParams,
          response: { 200: SubscriptionSchema },
        },
      },
      (request) => services.subscriptions.reenableOwn(principalOf(request).clientRef, request.params.id),
    );

    app.post(
      '/api/lml/v1/webhook-secret',
      {
        preHandler,
        schema: {
          tags,
          security,
          summary: 'Rotate your webhook secret',
          description:
            'Returns the new secret once. Until previousSecretValidUntil, webhook-signature carries signatures with both secrets ' +
            'so receivers can switch without losing a delivery.',
          response: {
            200: Type.Object({
              webhookSecret: Type.String(),
              previousSecretValidUntil: Type.String({ format: 'date-time' }),
            }),
          },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        return services.clients.rotateWebhookSecret(principalOf(request).clientRef);
      },
    );
  };
