/** Admin: the webhook delivery log, one-off re-sends and bulk recovery of a subscription's failures. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  AdminDeliveryQuerySchema,
  DeliveryDetailSchema,
  DeliveryPageSchema,
  DeliverySchema,
  IdParams,
} from '../delivery/schemas.js';
import type { Services } from '../services.js';

export const adminDeliveryRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['admin: deliveries'];
    const security = [{ admin: [] }];
    app.get(
      '/deliveries',
      {
        schema: {
          tags,
          security,
          summary: 'Webhook deliveries, newest first, filtered by status, subscription or event',
          querystring: AdminDeliveryQuerySchema,
          response: { 200: DeliveryPageSchema },
        },
      },
      (request) => services.deliveries.list(request.query),
    );
    app.get(
      '/deliveries/:id',
      {
        schema: {
          tags,
          security,
          summary: 'One delivery with every attempt (status, duration, error class, first 4 KB of the answer)',
          params: IdParams,
          response: { 200: DeliveryDetailSchema },
        },
      },
      (request) => services.deliveries.get(request.params.id),
    );
    app.post(
      '/deliveries/:id/retry',
      {
        schema: {
          tags,
          security,
          summary: 'Send a failed or succeeded delivery again now',
          description:
            'One more attempt with the same webhook-id. 409 when it is already pending or its subscription is disabled.',
          params: IdParams,
          response: { 202: DeliverySchema },
        },
      },
      async (request, reply) => {
        const delivery = await services.deliveries.retry(request.params.id);
        void reply.code(202);
        return delivery;
      },
    );
    app.post(
      '/subscriptions/:id/recover',
      {
        schema: {
          tags,
          security,
          summary: 'Re-enable a subscription and re-send its deliveries that failed, created since a moment',
          params: IdParams,
          body: Type.Object(
            { since: Type.String({ format: 'date-time', examples: ['2026-09-01T00:00:00Z'] }) },
            { additionalProperties: false },
          ),
          response: { 200: Type.Object({ requeued: Type.Integer() }) },
        },
      },
      (request) => services.deliveries.recover(request.params.id, request.body.since),
    );
  };
