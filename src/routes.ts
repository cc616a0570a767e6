/**
 * The route table: every capability's routes, one line each, with the prefix and guard they run under.
 * Public API routes carry their own bearer guard per scope; the admin API shares one guard.
 */
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { adminClientRoutes } from './admin/clients.routes.js';
import { adminDeliveryRoutes } from './admin/deliveries.routes.js';
import { adminLmlRoutes } from './admin/lml.routes.js';
import { adminOfferRoutes } from './admin/offers.routes.js';
import { authRoutes } from './auth/routes.js';
import { deliveryRoutes } from './delivery/routes.js';
import { lmlRoutes } from './lml/routes.js';
import { offerRoutes } from './offers/routes.js';
import { opsRoutes } from './ops/routes.js';
import { adminOverviewRoutes } from './ops/overview.routes.js';
import { adminPortalRoutes } from './portal/admin.routes.js';
import { adminOrConsole } from './portal/guard.js';
import { portalRoutes } from './portal/routes.js';
import type { Services } from './services.js';
import { adminSubscriptionRoutes } from './subscriptions/admin.routes.js';
import { subscriptionRoutes } from './subscriptions/routes.js';

export async function registerRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(cookie); //                                        request.cookies for the browser sessions (portal, console)
  await app.register(opsRoutes(services)); //                          /healthz /readyz
  await app.register(authRoutes(services)); //                         /api/auth/token, /.well-known/*
  await app.register(offerRoutes(services)); //                        /api/v1/offers[/:id]
  await app.register(lmlRoutes(services), { prefix: '/api/lml/v1' }); // /api/lml/v1/schools[/:id], /lists[/:idOrSlug], /structure
  await app.register(deliveryRoutes(services)); //                     /api/lml/v1/subscriptions/:id/deliveries, /ping
  await app.register(subscriptionRoutes(services)); //                 /api/lml/v1/subscriptions[/:id[/enable]], /api/lml/v1/webhook-secret
  await app.register(portalRoutes(services)); //                       /portal, /portal/api/* (partner session cookie + CSRF)

  await app.register(
    async (admin) => {
      // onRequest, not preHandler: unauthenticated callers are refused before their body is read or validated.
      // Bearer ADMIN_TOKEN, or the operator console's session cookie (CSRF-checked on state changes).
      admin.addHook('onRequest', adminOrConsole(services));
      await admin.register(adminClientRoutes(services)); //              /api/admin/v1/clients
      await admin.register(adminDeliveryRoutes(services)); //            /api/admin/v1/deliveries[/:id[/retry]], /subscriptions/:id/recover
      await admin.register(adminLmlRoutes(services)); //                 /api/admin/v1/schools[/:id], /lists[/:id[/status]]
      await admin.register(adminOfferRoutes(services)); //               /api/admin/v1/offers
      await admin.register(adminSubscriptionRoutes(services)); //        /api/admin/v1/subscriptions[/:id[/enable]]
      await admin.register(adminPortalRoutes(services)); //              /api/admin/v1/clients/:id/portal-link
      await admin.register(adminOverviewRoutes(services)); //            /api/admin/v1/overview, /subscription-health
    },
    { prefix: '/api/admin/v1' },
  );
}
