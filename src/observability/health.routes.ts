/**
 * What an operator's probes and scrapers read: liveness, readiness and Prometheus metrics. /metrics
 * is public on purpose (scrapers rarely carry tokens): it exposes counts and timings only, never
 * identifiers; operators who need more firewall it at the proxy.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Db } from '../db/database.js';
import type { Metrics } from './metrics.js';

export interface HealthRoutesOptions {
  metrics: Metrics;
  /** Readiness pings the database. */
  db: Pick<Db, 'ping'>;
}

export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (app, { metrics, db }) => {
  app.get(
    '/healthz',
    {
      // Probes come every few seconds: their requests are not logged at info (a failure still is, at error).
      logLevel: 'warn',
      config: { auth: 'public' },
      schema: {
        operationId: 'getHealth',
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
      // Probes come every few seconds: their requests are not logged at info (a failure still is, at error).
      logLevel: 'warn',
      config: { auth: 'public' },
      schema: {
        operationId: 'getReadiness',
        tags: ['operations'],
        summary: 'Readiness: the database answers',
        response: {
          200: Type.Object({ status: Type.String(), database: Type.String() }),
          503: Type.Object({ status: Type.String(), database: Type.String() }),
        },
      },
    },
    async (_request, reply) => {
      const up = await db.ping();
      void reply.code(up ? 200 : 503);
      return { status: up ? 'ready' : 'unavailable', database: up ? 'up' : 'down' };
    },
  );
  app.get(
    '/metrics',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getMetrics',
        documentedResponses: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: {
              'text/plain': {
                schema: { type: 'string' },
                example:
                  '# HELP shelfmark_workers_alive Delivery worker processes (role worker or all) whose heartbeat was seen within three WORKER_HEARTBEAT_SECONDS\n# TYPE shelfmark_workers_alive gauge\nshelfmark_workers_alive 1\n',
              },
            },
          },
        },
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format)',
        produces: ['text/plain'],
      },
    },
    async (_request, reply) => {
      const { registry } = metrics;
      void reply.type(registry.contentType).header('cache-control', 'no-store');
      return registry.metrics();
    },
  );
};
