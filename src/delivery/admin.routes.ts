/** Admin: the webhook delivery log, one-off re-sends, sending a waiting retry now, and bulk recovery of a subscription's failures. */

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { initiatorOf } from '../audit/initiator.js';
import {
  AdminDeliveryQuerySchema,
  DeliveryDetailSchema,
  DeliveryPageSchema,
  DeliverySchema,
  IdParams,
} from './schemas.js';
import type { DeliveryService } from './service.js';

export interface AdminDeliveryRoutesOptions {
  deliveries: DeliveryService;
}

export const adminDeliveryRoutes: FastifyPluginAsyncTypebox<AdminDeliveryRoutesOptions> = async (
  app,
  { deliveries },
) => {
  const tags = ['admin: deliveries'];
  app.get(
    '/deliveries',
    {
      config: { auth: 'admin', role: 'viewer' },
      schema: {
        operationId: 'adminListDeliveries',
        tags,
        summary: 'Webhook deliveries, newest first, filtered by status, subscription or event',
        querystring: AdminDeliveryQuerySchema,
        response: { 200: DeliveryPageSchema },
      },
    },
    (request) => deliveries.list(request.query),
  );
  app.get(
    '/deliveries/:id',
    {
      config: { auth: 'admin', role: 'viewer' },
      schema: {
        operationId: 'adminGetDelivery',
        tags,
        summary: 'One delivery with every attempt (status, duration, error class, first 4 KB of the answer)',
        params: IdParams,
        response: { 200: DeliveryDetailSchema },
      },
    },
    (request) => deliveries.get(request.params.id),
  );
  app.post(
    '/deliveries/:id/retry',
    {
      config: {
        auth: 'admin',
        role: 'support',
        idempotent: true,
        problems: ['conflict', 'client-revoked'],
        audit: 'delivery.retried',
      },
      schema: {
        operationId: 'adminRetryDelivery',
        tags,
        summary: 'Send a failed or succeeded delivery again now',
        description:
          'One more attempt with the same webhook-id. 409 when it is already pending or its subscription is disabled.',
        params: IdParams,
        response: { 202: DeliverySchema },
      },
    },
    async (request, reply) => {
      const delivery = await deliveries.retry(request.params.id, initiatorOf(request));
      void reply.code(202);
      return delivery;
    },
  );
  app.post(
    '/deliveries/:id/send-now',
    {
      config: {
        auth: 'admin',
        role: 'support',
        idempotent: true,
        problems: ['conflict', 'client-revoked'],
        audit: 'delivery.sent-now',
      },
      schema: {
        operationId: 'adminSendDeliveryNow',
        tags,
        summary: 'Send a delivery that waits for its next scheduled retry now',
        description:
          'Makes the waiting attempt due at once (same webhook-id). 409 when the delivery is finished (retry it ' +
          'instead), due or being attempted already.',
        params: IdParams,
        response: { 202: DeliverySchema },
      },
    },
    async (request, reply) => {
      const delivery = await deliveries.sendNow(request.params.id, initiatorOf(request));
      void reply.code(202);
      return delivery;
    },
  );
  app.post(
    '/subscriptions/:id/recover',
    {
      config: {
        auth: 'admin',
        role: 'support',
        idempotent: true,
        problems: ['client-revoked'],
        audit: 'subscription.recovered',
      },
      schema: {
        operationId: 'adminRecoverSubscription',
        tags,
        summary: 'Re-enable a subscription and re-send its deliveries that failed, created since a moment',
        params: IdParams,
        body: Type.Object(
          { since: Type.String({ format: 'date-time', examples: ['2026-09-01T00:00:00Z'] }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ requeued: Type.Integer() }) },
      },
    },
    (request) => deliveries.recover(request.params.id, request.body.since, initiatorOf(request)),
  );
};
