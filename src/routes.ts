/**
 * The route table: every capability's routes, one line each, with the prefix and guard they run under.
 * Public API routes carry their own bearer guard per scope; the admin API shares one guard.
 */
import type { FastifyInstance } from 'fastify';
import { adminClientRoutes } from './admin/clients.routes.js';
import { authRoutes } from './auth/routes.js';
import { opsRoutes } from './ops/routes.js';
import type { Services } from './services.js';

export async function registerRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(opsRoutes(services)); //                          /healthz /readyz
  await app.register(authRoutes(services)); //                         /api/auth/token, /.well-known/*

  await app.register(
    async (admin) => {
      admin.addHook('preHandler', services.adminAuth.guard);
      await admin.register(adminClientRoutes(services)); //              /api/admin/v1/clients
    },
    { prefix: '/api/admin/v1' },
  );
}
