/**
 * The operator's surface: liveness, readiness, Prometheus metrics, the API reference and the
 * dashboard. /metrics is public on purpose (scrapers rarely carry tokens): it exposes counts and
 * timings only, never identifiers; operators who need more firewall it at the proxy.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../services.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { docsRoutes } from './docs.routes.js';

export const opsRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    const kysely = services.deps.db.kysely;
    services.metrics.deliveryCounts = async () => {
      const rows = await kysely
        .selectFrom('deliveries')
        .select((eb) => ['status', eb.fn.countAll<number | string>().as('count')])
        .groupBy('status')
        .execute();
      // PostgreSQL returns count(*) as bigint text unless parsed; Number() covers both engines.
      return rows.map((row) => [row.status, Number(row.count)] as const);
    };

    services.metrics.queueState = async () => {
      const row = await kysely
        .selectFrom('deliveries')
        .select((eb) => [eb.fn.countAll<number | string>().as('pending'), eb.fn.min('created_at').as('oldest')])
        .where('status', '=', 'pending')
        .executeTakeFirst();
      const oldest = row?.oldest;
      return {
        pending: Number(row?.pending ?? 0),
        oldestCreatedAt: oldest === null || oldest === undefined ? null : Number(oldest),
        now: services.deps.clock.now(),
      };
    };

    app.get(
      '/healthz',
      {
        schema: {
          tags: ['operations'],
          summary: 'Liveness: the process answers',
          response: { 200: Type.Object({ status: Type.Literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      '/readyz',
      {
        schema: {
          tags: ['operations'],
          summary: 'Readiness: the database answers',
          response: {
            200: Type.Object({ status: Type.String(), database: Type.String() }),
            503: Type.Object({ status: Type.String(), database: Type.String() }),
          },
        },
      },
      async (_request, reply) => {
        const up = await services.deps.db.ping();
        void reply.code(up ? 200 : 503);
        return { status: up ? 'ready' : 'unavailable', database: up ? 'up' : 'down' };
      },
    );
    app.get(
      '/metrics',
      {
        schema: {
          tags: ['operations'],
          summary: 'Prometheus metrics (text exposition format)',
          produces: ['text/plain'],
        },
      },
      async (_request, reply) => {
        const { registry } = services.metrics;
        void reply.type(registry.contentType).header('cache-control', 'no-store');
        return registry.metrics();
      },
    );

    await app.register(docsRoutes);
    await app.register(dashboardRoutes(services));
  };
