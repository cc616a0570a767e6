/**
 * The route table, part of the composition root: every capability's routes, one line each, with the
 * prefix and exactly the collaborators each plugin uses. Each route declares its own auth, which
 * route-guards.ts turns into its guard.
 */

import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { adminAuditRoutes } from '../audit/audit.routes.js';
import type { AuditStore } from '../audit/store.js';
import { adminClientRoutes } from '../auth/admin.routes.js';
import { authRoutes } from '../auth/auth.routes.js';
import type { ClientService } from '../auth/client-service.js';
import type { SigningKeys } from '../auth/signing-keys.js';
import type { TokenEndpoint } from '../auth/token-endpoint.js';
import type { TokenService } from '../auth/token-service.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { adminDeliveryRoutes } from '../delivery/admin.routes.js';
import { deliveryRoutes } from '../delivery/deliveries.routes.js';
import type { DeliveryService } from '../delivery/service.js';
import { eventFeedRoutes } from '../events/feed.routes.js';
import type { EventFeedParts } from '../events/feed-setup.js';
import type { AdminAuth } from '../identity/admin-guard.js';
import { consoleSessionRoutes } from '../identity/console-session.routes.js';
import { oidcRoutes } from '../identity/oidc.routes.js';
import type { OperatorService } from '../identity/operator-service.js';
import { adminOperatorRoutes } from '../identity/operators.routes.js';
import type { WebSessions } from '../identity/sessions.js';
import type { AuthFailureLimit } from '../limits/auth-failures.js';
import type { RequestRateLimit } from '../limits/request-limit.js';
import { adminLmlRoutes } from '../lml/admin.routes.js';
import type { ListService } from '../lml/list-service.js';
import { lmlRoutes } from '../lml/lml.routes.js';
import type { SchoolService } from '../lml/school-service.js';
import type { StructureService } from '../lml/structure.js';
import { healthRoutes } from '../observability/health.routes.js';
import type { Metrics } from '../observability/metrics.js';
import { adminOfferRoutes } from '../offers/admin.routes.js';
import { listOfferRoutes } from '../offers/list-offers.routes.js';
import { offerRoutes } from '../offers/offers.routes.js';
import type { PricedListService } from '../offers/priced-list.js';
import type { OfferService } from '../offers/service.js';
import { docsRoutes } from '../openapi/docs.routes.js';
import { adminOverviewRoutes } from '../overview/admin.routes.js';
import type { OverviewService } from '../overview/service.js';
import { consolePageRoutes } from '../pages/console.routes.js';
import { homeRoutes } from '../pages/home.routes.js';
import { languageRoutes } from '../pages/language.routes.js';
import { adminPortalRoutes } from '../portal/admin.routes.js';
import { portalRoutes } from '../portal/portal.routes.js';
import type { PortalService } from '../portal/service.js';
import { adminStorageRoutes } from '../retention/admin.routes.js';
import type { RetentionServices } from '../retention/setup.js';
import { adminSubscriptionRoutes } from '../subscriptions/admin.routes.js';
import type { SubscriptionRecovery } from '../subscriptions/recovery.js';
import type { SubscriptionReplay } from '../subscriptions/replay.js';
import { replayRoutes } from '../subscriptions/replay.routes.js';
import type { SubscriptionService } from '../subscriptions/service.js';
import { subscriptionRoutes } from '../subscriptions/subscriptions.routes.js';

/**
 * What the route table hands its plugins, and the guards (route-guards.ts) their declared auth: the
 * service graph (services.ts) is built to this shape, and the table sees no more of it.
 */
export interface RouteServices {
  /** The audit log as the operator reads it: its pages, the export, verification. */
  audit: AuditStore;
  clients: ClientService;
  tokens: TokenService;
  /** The token endpoint's pipeline (parse → authenticate → scopes → issue). */
  tokenEndpoint: TokenEndpoint;
  signingKeys: SigningKeys;
  /** Per-client request rate of the bearer-guarded API (per node). */
  rateLimit: RequestRateLimit;
  /** Brute-force limit of the token endpoint (per node). */
  authFailures: AuthFailureLimit;
  /** The event feed (GET /api/lml/v1/events) and its long-poll waiters. */
  eventFeed: EventFeedParts;
  /** Replays past events into a subscription. */
  replays: SubscriptionReplay;
  clock: Clock;
  offers: OfferService;
  /** A whole book list priced from the offers read model. */
  pricedLists: PricedListService;
  subscriptions: SubscriptionService;
  /** "Re-enable and recover what failed" (portal banner, console health). */
  recovery: SubscriptionRecovery;
  schools: SchoolService;
  lists: ListService;
  structure: StructureService;
  deliveries: DeliveryService;
  /** Partner-portal links and browser sessions (portal and operator console). */
  webSessions: WebSessions;
  portal: PortalService;
  overview: OverviewService;
  /** Operators by name: sign-in through the identity provider, the operators page. */
  operators: OperatorService;
  metrics: Metrics;
  /** The storage view (GET /api/admin/v1/storage). */
  storage: RetentionServices['storage'];
  /** The guard that admits the admin token (admin routes, console sign-in). */
  adminAuth: AdminAuth;
}

export async function registerRoutes(
  app: FastifyInstance,
  s: RouteServices,
  { config, db }: { config: Config; db: Db },
): Promise<void> {
  const sessionIdleSeconds = config.sessionIdleSeconds;

  await app.register(cookie); // request.cookies for the browser sessions (portal, console)
  await app.register(homeRoutes, { provider: s.operators.oidc?.issuerName }); // / (a page naming the service and its entry points)
  await app.register(languageRoutes); // /language/nl|en (the pages' NL | EN switch: a cookie, then back)
  await app.register(healthRoutes, { metrics: s.metrics, db, offers: s.offers.readModel }); // /healthz /readyz /metrics
  await app.register(docsRoutes); //                                                /openapi.json /docs /problems/:code
  await app.register(consolePageRoutes); // /dashboard[/<section>], /dashboard/app.js|css
  await app.register(consoleSessionRoutes, {
    adminAuth: s.adminAuth,
    authFailures: s.authFailures,
    webSessions: s.webSessions,
    sessionIdleSeconds,
    operators: s.operators,
  }); // /dashboard/api/session, /dashboard/api/sign-out
  await app.register(oidcRoutes, { operators: s.operators }); // /dashboard/login/oidc[/callback]
  await app.register(authRoutes, { tokenEndpoint: s.tokenEndpoint, signingKeys: s.signingKeys, config }); // /api/auth/token, /.well-known/*
  await app.register(offerRoutes, { offers: s.offers }); //   /api/v1/offers[/:id]
  await app.register(listOfferRoutes, { pricedLists: s.pricedLists }); // /api/v1/lists/:identifier/offers
  await app.register(lmlRoutes, {
    prefix: '/api/lml/v1',
    schools: s.schools,
    lists: s.lists,
    structure: s.structure,
  }); // schools, lists, structure
  await app.register(eventFeedRoutes, { eventFeed: s.eventFeed, db, tokens: s.tokens }); // /api/lml/v1/events
  await app.register(deliveryRoutes, { deliveries: s.deliveries }); // /api/lml/v1/subscriptions/:id/deliveries, /ping
  await app.register(subscriptionRoutes, {
    subscriptions: s.subscriptions,
    clients: s.clients,
    replays: s.replays,
  }); // subscriptions, webhook-secret
  await app.register(replayRoutes, { replays: s.replays, clock: s.clock }); // /api/lml/v1/subscriptions/:id/replay
  await app.register(portalRoutes, { webSessions: s.webSessions, portal: s.portal, sessionIdleSeconds }); // /portal, /portal/api/*

  await app.register(
    async (admin) => {
      await admin.register(adminClientRoutes, { clients: s.clients }); //                      /clients
      await admin.register(adminDeliveryRoutes, { deliveries: s.deliveries }); //               /deliveries[/:id[/retry]], /subscriptions/:id/recover
      await admin.register(adminLmlRoutes, { schools: s.schools, lists: s.lists }); //          /schools[/:id], /lists[/:id[/status]]
      await admin.register(adminOfferRoutes, { offers: s.offers }); //                          /offers
      await admin.register(adminSubscriptionRoutes, { subscriptions: s.subscriptions, recovery: s.recovery }); // /subscriptions[/:id[/enable|/recover-failed]]
      await admin.register(adminPortalRoutes, { webSessions: s.webSessions, publicBaseUrl: config.publicBaseUrl }); // /clients/:id/portal-link
      await admin.register(adminOverviewRoutes, { overview: s.overview }); //                   /overview, /subscription-health
      await admin.register(adminStorageRoutes, { storage: s.storage }); //                     /storage
      await admin.register(adminAuditRoutes, { audit: s.audit }); //                     /audit
      await admin.register(adminOperatorRoutes, { operators: s.operators }); //                /operators[/:sub/disable|enable]
    },
    { prefix: '/api/admin/v1' },
  );
}
