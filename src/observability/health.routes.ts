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
  /** Readiness waits for the offers read model's first reading of the catalogue. */
  offers: { readonly warm: boolean };
}

const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('warming'), Type.Literal('unavailable')]),
  database: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  offers: Type.Union([Type.Literal('warm'), Type.Literal('warming')], {
    description:
      'warming while a starting node reads the catalogue into memory (at most a minute): a proxy that ' +
      'routes by /readyz sends requests to warm nodes only',
  }),
});

export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (app, { metrics, db, offers }) => {
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
        summary: 'Readiness: the database answers and the offers are in memory',
        response: {
          200: { ...Readiness, examples: [{ status: 'ready', database: 'up', offers: 'warm' }] },
          503: { ...Readiness, examples: [{ status: 'warming', database: 'up', offers: 'warming' }] },
        },
      },
    },
    async (_request, reply) => {
      const up = await db.ping();
      const warm = offers.warm;
      void reply.code(up && warm ? 200 : 503);
      return {
        status: !up ? ('unavailable' as const) : warm ? ('ready' as const) : ('warming' as const),
        database: up ? ('up' as const) : ('down' as const),
        offers: warm ? ('warm' as const) : ('warming' as const),
      };
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
