/**
 * Client side of the delivery log (scope webhooks:manage): a client sees the deliveries of its own
 * subscriptions and can send a test ping. Another client's subscription answers 404.
 */

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { initiatorOf } from '../audit/initiator.js';
import { principalOf } from '../auth/guard.js';
import { DeliveryPageSchema, DeliveryQuerySchema, IdParams, PingOutcomeSchema } from './schemas.js';
import type { DeliveryService } from './service.js';

const BASE = '/api/lml/v1/subscriptions/:id';

export interface DeliveryRoutesOptions {
  deliveries: DeliveryService;
}

export const deliveryRoutes: FastifyPluginAsyncTypebox<DeliveryRoutesOptions> = async (app, { deliveries }) => {
  const tags = ['subscriptions'];

  app.get(
    `${BASE}/deliveries`,
    {
      config: { auth: { scope: 'webhooks:manage' } },
      schema: {
        operationId: 'listSubscriptionDeliveries',
        tags,
        summary: "A subscription's webhook deliveries, newest first",
        description:
          'Each delivery is one event for this subscription with its status and last result. Cursor paging with starting_after.',
        params: IdParams,
        querystring: DeliveryQuerySchema,
        response: { 200: DeliveryPageSchema },
      },
    },
    (request) => deliveries.listForSubscription(request.params.id, principalOf(request).clientRef, request.query),
  );

  app.post(
    `${BASE}/ping`,
    {
      config: {
        auth: { scope: 'webhooks:manage' },
        idempotent: true,
        problems: ['conflict'],
        audit: 'subscription.pinged',
      },
      schema: {
        operationId: 'pingSubscription',
        tags,
        summary: 'Send a test webhook ({"type":"ping","resource":"subscription",...}) to this subscription',
        description:
          'Sends one attempt before answering, and answers with its outcome: `ok` only when the receiver answered 2xx. ' +
          "A ping is never retried and never changes the subscription's health (it is not counted as a failure). " +
          'Its delivery shows in GET .../deliveries as succeeded or failed. A disabled subscription answers 409.',
        params: IdParams,
        response: { 200: PingOutcomeSchema },
      },
    },
    async (request, reply) => {
      const result = await deliveries.ping(request.params.id, principalOf(request).clientRef, initiatorOf(request));
      void reply.code(200);
      return result;
    },
  );
};
