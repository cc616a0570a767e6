/** Admin: the console's overview figures and per-subscription delivery health. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { OverviewService } from './overview.js';

const OverviewSchema = Type.Object(
  {
    clients: Type.Integer({ description: 'Active (not revoked) clients' }),
    subscriptions: Type.Integer(),
    publishedLists: Type.Integer(),
    publishedOffers: Type.Integer(),
    queueDepth: Type.Integer({ description: 'Pending deliveries' }),
    failedLast24h: Type.Integer(),
    p95DeliveryLatencyMs: Type.Union([Type.Number(), Type.Null()], {
      description: 'Commit to successful delivery, last 24 h',
    }),
    attemptsPerHour: Type.Array(
      Type.Object({ hour: Type.String({ format: 'date-time' }), succeeded: Type.Integer(), failed: Type.Integer() }),
    ),
    generatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Overview' },
);

const HealthSchema = Type.Object({
  data: Type.Array(
    Type.Object({
      subscriptionId: Type.String(),
      lastSuccessAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      consecutiveFailures: Type.Integer(),
    }),
  ),
});

export interface AdminOverviewRoutesOptions {
  overview: OverviewService;
}

export const adminOverviewRoutes: FastifyPluginAsyncTypebox<AdminOverviewRoutesOptions> = async (app, { overview }) => {
  const tags = ['admin: operations'];
  app.get(
    '/overview',
    {
      schema: {
        operationId: 'getAdminOverview',
        tags,
        summary: 'Counts, queue depth and the last 24 hours of delivery work',
        response: { 200: OverviewSchema },
      },
    },
    () => overview.get(),
  );
  app.get(
    '/subscription-health',
    {
      schema: {
        operationId: 'getAdminSubscriptionHealth',
        tags,
        summary: 'Per subscription: last successful delivery and failures since',
        response: { 200: HealthSchema },
      },
    },
    async () => ({ data: await overview.health() }),
  );
};
