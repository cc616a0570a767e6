/** Liveness and readiness for orchestrators and load balancers. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../services.js';

export const opsRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/healthz',
      { schema: { tags: ['operations'], summary: 'Liveness: the process answers', response: { 200: Type.Object({ status: Type.Literal('ok') }) } } },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      '/readyz',
      {
        schema: {
          tags: ['operations'],
          summary: 'Readiness: the database answers',
          response: { 200: Type.Object({ status: Type.String(), database: Type.String() }), 503: Type.Object({ status: Type.String(), database: Type.String() }) },
        },
      },
      async (_request, reply) => {
        const up = await services.deps.db.ping();
        void reply.code(up ? 200 : 503);
        return { status: up ? 'ready' : 'unavailable', database: up ? 'up' : 'down' };
      },
    );
  };
