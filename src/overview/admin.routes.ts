/** Admin: the console's overview figures and per-subscription delivery health. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HealthPageSchema, OverviewSchema } from './schemas.js';
import type { OverviewService } from './service.js';

export interface AdminOverviewRoutesOptions {
  overview: OverviewService;
}

export const adminOverviewRoutes: FastifyPluginAsyncTypebox<AdminOverviewRoutesOptions> = async (app, { overview }) => {
  const tags = ['admin: operations'];
  app.get(
    '/overview',
    {
      config: { auth: 'admin', role: 'viewer' },
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
      config: { auth: 'admin', role: 'viewer' },
      schema: {
        operationId: 'getAdminSubscriptionHealth',
        tags,
        summary: 'Per subscription: last successful delivery, and attempts failed in a row since',
        response: { 200: HealthPageSchema },
      },
    },
    async () => ({ data: await overview.health() }),
  );
};
