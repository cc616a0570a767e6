/**
 * Public subscription API (scope webhooks:manage): register, list, read, delete and re-enable a
 * client's own webhook subscriptions, and rotate the client's webhook secret.
 */

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { initiatorOf } from '../audit/initiator.js';
import { RotatedWebhookSecret } from '../auth/client-schemas.js';
import type { ClientService } from '../auth/client-service.js';
import { principalOf } from '../auth/guard.js';
import { documentedAs, feeds } from '../http/documented.js';
import { parseReplayStart, REPLAY_START_RULE, type SubscriptionReplay } from './replay.js';
import { REPLAY_FROM_DESCRIPTION } from './replay.routes.js';
import {
  CreateSubscriptionBody,
  pageOf,
  SubscriptionIdParams,
  SubscriptionPageQuerySchema,
  SubscriptionSchema,
} from './schemas.js';
import type { SubscriptionService } from './service.js';

const BASE = '/api/lml/v1/subscriptions';

export interface SubscriptionRoutesOptions {
  subscriptions: SubscriptionService;
  clients: ClientService;
  replays: SubscriptionReplay;
}

/** The public registration also takes `replayFrom` (the operator's has its own replay route). */
const CreateWithReplayBody = Type.Object(
  {
    ...CreateSubscriptionBody.properties,
    replayFrom: Type.Optional(
      documentedAs(Type.String({ maxLength: 100, description: REPLAY_FROM_DESCRIPTION }), REPLAY_START_RULE),
    ),
  },
  { additionalProperties: false },
);

export const subscriptionRoutes: FastifyPluginAsyncTypebox<SubscriptionRoutesOptions> = async (
  app,
  { subscriptions, clients, replays },
) => {
  const tags = ['subscriptions'];

  app.post(
    BASE,
    {
      links: feeds([200, 201], { parameter: 'id', field: 'id' }, [
        'getSubscription',
        'deleteSubscription',
        'enableSubscription',
        'pingSubscription',
        'listSubscriptionDeliveries',
        'replaySubscription',
      ]),
      config: {
        auth: { scope: 'webhooks:manage' },
        idempotent: true,
        audit: ['subscription.created', 'subscription.replayed'],
        problems: ['invalid-ean', 'conflict', 'blocked-address', 'unresolvable-host', 'replay-too-large'],
      },
      schema: {
        operationId: 'createSubscription',
        tags,
        summary: 'Register a webhook subscription',
        description:
          'Answers 201 with a Location header. Registering the same notificationUrl and event again (either spelling) ' +
          'is idempotent: 200 with the existing subscription. An unknown event is a 400 listing acceptedEvents; a host ' +
          'that is or resolves to a loopback, private, link-local or otherwise non-public address is a 422 blocked-address; ' +
          'a host that does not resolve is a 422 unresolvable-host. Offer events take an optional filter, {"eans": [...]} ' +
          '(1–500 codes; a bad code is a 400 invalid-ean) or {"list": "<list identifier>"} (the list\'s current items; an ' +
          'unknown list, or a filter on another event, is a 400 validation-failed); registering the same URL and event ' +
          'with another filter is a 409 conflict. With replayFrom, the matching past events are queued as well (see replaySubscription).',
        body: CreateWithReplayBody,
        response: { 200: SubscriptionSchema, 201: SubscriptionSchema },
      },
    },
    async (request, reply) => {
      const clientRef = principalOf(request).clientRef;
      const { replayFrom, ...input } = request.body;
      const start = replayFrom === undefined ? undefined : parseReplayStart(replayFrom, '/replayFrom');
      if (start !== undefined) await replays.checkBound(clientRef, input, start);
      const { subscription, created } = await subscriptions.create(clientRef, input, initiatorOf(request));
      // A repeat of the registration (200) replays nothing again: POST …/{id}/replay does that.
      if (start !== undefined && created)
        await replays.replay(clientRef, subscription.id, start, initiatorOf(request), true);
      void reply.code(created ? 201 : 200).header('location', `${BASE}/${subscription.id}`);
      return subscription;
    },
  );

  app.get(
    BASE,
    {
      config: { auth: { scope: 'webhooks:manage' } },
      schema: {
        operationId: 'listSubscriptions',
        tags,
        summary: "The caller's subscriptions, oldest first",
        description:
          'Cursor paging: pass the last id of a page as starting_after to get the next one while has_more is true.',
        querystring: SubscriptionPageQuerySchema,
        response: { 200: pageOf(SubscriptionSchema) },
      },
    },
    (request) =>
      subscriptions.list(principalOf(request).clientRef, {
        limit: request.query.limit,
        startingAfter: request.query.starting_after,
      }),
  );

  app.get(
    `${BASE}/:id`,
    {
      config: { auth: { scope: 'webhooks:manage' } },
      schema: {
        operationId: 'getSubscription',
        tags,
        summary: 'One of your subscriptions',
        description: "Another client's id answers 404.",
        params: SubscriptionIdParams,
        response: { 200: SubscriptionSchema },
      },
    },
    (request) => subscriptions.get(principalOf(request).clientRef, request.params.id),
  );

  app.delete(
    `${BASE}/:id`,
    {
      config: { auth: { scope: 'webhooks:manage' }, idempotent: true, audit: 'subscription.deleted' },
      schema: {
        operationId: 'deleteSubscription',
        tags,
        summary: 'Delete a subscription; its pending deliveries are dropped',
        params: SubscriptionIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      await subscriptions.delete(principalOf(request).clientRef, request.params.id, initiatorOf(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${BASE}/:id/enable`,
    {
      config: { auth: { scope: 'webhooks:manage' }, idempotent: true, audit: 'subscription.reenabled' },
      schema: {
        operationId: 'enableSubscription',
        tags,
        summary: 'Re-enable a disabled subscription after fixing the receiver',
        description: 'Clears disabledReason and the failure history. Enabling an active subscription changes nothing.',
        params: SubscriptionIdParams,
        response: { 200: SubscriptionSchema },
      },
    },
    (request) => subscriptions.reenableOwn(principalOf(request).clientRef, request.params.id, initiatorOf(request)),
  );

  app.post(
    '/api/lml/v1/webhook-secret',
    {
      config: { auth: { scope: 'webhooks:manage' }, idempotent: true, audit: 'client.webhook-secret.rotated' },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'Rotate your webhook secret',
        description:
          'Returns the new secret once. Until previousSecretValidUntil, webhook-signature carries signatures with both secrets ' +
          'so receivers can switch without losing a delivery.',
        response: { 200: RotatedWebhookSecret },
      },
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      return clients.rotateWebhookSecret(principalOf(request).clientRef, initiatorOf(request));
    },
  );
};
