/**
 * The partner portal: its pages (static shell + script) and the JSON endpoints they call, all under
 * /portal and guarded by the portal session cookie (plus the CSRF header on state changes). Each
 * handler is one call into PortalService, scoped to the signed-in client.
 */

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { initiatorOf } from '../audit/initiator.js';
import { DeliveryQuerySchema, IdParams } from '../delivery/schemas.js';
import { portalClientOf, setSessionCookie } from '../identity/session-guard.js';
import { PORTAL_COOKIE, type WebSessions } from '../identity/sessions.js';
import { serveAppPaths } from '../pages/app-paths.js';
import { CSS, JS, localizedHandler, serveAssets } from '../pages/web-assets.js';
import { loadWebAssets } from '../pages/web-bundle.js';
import { CreateSubscriptionBody, SubscriptionPageQuerySchema } from '../subscriptions/schemas.js';
import { PORTAL_PAGES } from './page.js';
import type { PortalService } from './service.js';

const API = '/portal/api';

export interface PortalRoutesOptions {
  webSessions: WebSessions;
  portal: PortalService;
  /** SESSION_IDLE_SECONDS, told to the page so it can warn before sign-out. */
  sessionIdleSeconds: number;
}

export const portalRoutes: FastifyPluginAsyncTypebox<PortalRoutesOptions> = async (
  app,
  { webSessions, portal, sessionIdleSeconds },
) => {
  const web = await loadWebAssets();
  // The page in the visitor's language (cookie or Accept-Language).
  for (const url of ['/portal', '/portal/sign-in'])
    app.get(url, { config: { auth: 'public' }, schema: { hide: true } }, localizedHandler(PORTAL_PAGES));
  serveAssets(app, [
    { url: '/portal/app.js', type: JS, body: web.portalJs },
    { url: '/portal/app.css', type: CSS, body: web.css },
  ]);
  // /portal/subscriptions, /portal/deliveries/<id>: the page, which draws the section its address names.
  serveAppPaths(app, { base: '/portal', sections: ['credentials', 'subscriptions', 'deliveries'], html: PORTAL_PAGES });
  const schema = { hide: true } as const;

  app.post(
    `${API}/sign-in`,
    {
      // A link works once: repeating the sign-in is refused, never replayed.
      config: { auth: 'public', idempotent: false },
      schema: { ...schema, body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }) },
    },
    async (request, reply) => {
      const { sessionId, session } = await webSessions.redeemPortalLink(request.body.token);
      setSessionCookie(request, reply, PORTAL_COOKIE, sessionId);
      void reply.header('cache-control', 'no-store');
      return { csrfToken: session.csrfToken };
    },
  );

  // Answers 200 either way: the page asks on every load, and a signed-out visitor is not an error.
  app.get(`${API}/session`, { config: { auth: 'public' }, schema }, async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const session = await webSessions.resolve(request.cookies[PORTAL_COOKIE], 'portal');
    if (session?.clientRef === undefined || session.clientRef === null) return { signedIn: false };
    return {
      signedIn: true,
      client: await portal.me(session.clientRef),
      csrfToken: session.csrfToken,
      idleTimeoutSeconds: sessionIdleSeconds,
    };
  });

  const guardedRoutes: FastifyPluginAsyncTypebox = async (guarded) => {
    guarded.addHook('onSend', async (_request, reply) => {
      void reply.header('cache-control', 'no-store');
    });

    guarded.post(
      `${API}/sign-out`,
      { config: { auth: 'portal', idempotent: true, audit: [] }, schema },
      async (request, reply) => {
        await webSessions.end(request.cookies[PORTAL_COOKIE]);
        void reply.clearCookie(PORTAL_COOKIE, { path: '/' });
        return reply.code(204).send();
      },
    );
    guarded.post(
      `${API}/secret`,
      { config: { auth: 'portal', idempotent: false, audit: 'client.secret.reset' }, schema },
      (request) => portal.resetSecret(portalClientOf(request), initiatorOf(request)),
    );
    guarded.post(
      `${API}/webhook-secret`,
      { config: { auth: 'portal', idempotent: false, audit: 'client.webhook-secret.rotated' }, schema },
      (request) => portal.rotateWebhookSecret(portalClientOf(request), initiatorOf(request)),
    );

    guarded.get(
      `${API}/subscriptions`,
      { config: { auth: 'portal' }, schema: { ...schema, querystring: SubscriptionPageQuerySchema } },
      (request) => portal.listSubscriptions(portalClientOf(request), request.query.limit, request.query.starting_after),
    );
    guarded.post(
      `${API}/subscriptions`,
      {
        config: { auth: 'portal', idempotent: true, audit: 'subscription.created' },
        schema: { ...schema, body: CreateSubscriptionBody },
      },
      async (request, reply) => {
        const { subscription, created } = await portal.createSubscription(
          portalClientOf(request),
          request.body,
          initiatorOf(request),
        );
        void reply.code(created ? 201 : 200);
        return subscription;
      },
    );
    guarded.delete(
      `${API}/subscriptions/:id`,
      {
        config: { auth: 'portal', idempotent: true, audit: 'subscription.deleted' },
        schema: { ...schema, params: IdParams },
      },
      async (request, reply) => {
        await portal.deleteSubscription(portalClientOf(request), request.params.id, initiatorOf(request));
        return reply.code(204).send();
      },
    );
    guarded.post(
      `${API}/subscriptions/:id/enable`,
      {
        config: { auth: 'portal', idempotent: true, audit: 'subscription.reenabled' },
        schema: { ...schema, params: IdParams },
      },
      (request) => portal.enableSubscription(portalClientOf(request), request.params.id, initiatorOf(request)),
    );
    guarded.post(
      `${API}/subscriptions/:id/ping`,
      {
        config: { auth: 'portal', idempotent: false, audit: 'subscription.pinged' },
        schema: { ...schema, params: IdParams },
      },
      async (request, reply) => {
        void reply.code(202);
        return portal.ping(portalClientOf(request), request.params.id, initiatorOf(request));
      },
    );
    guarded.post(
      `${API}/subscriptions/:id/recover`,
      {
        config: { auth: 'portal', idempotent: true, audit: 'subscription.recovered' },
        schema: { ...schema, params: IdParams, body: Type.Object({ since: Type.String({ maxLength: 40 }) }) },
      },
      (request) => portal.recover(portalClientOf(request), request.params.id, request.body.since, initiatorOf(request)),
    );
    guarded.post(
      `${API}/subscriptions/:id/recover-failed`,
      {
        config: { auth: 'portal', idempotent: true, audit: 'subscription.recovered' },
        schema: { ...schema, params: IdParams },
      },
      (request) => portal.recoverFailed(portalClientOf(request), request.params.id, initiatorOf(request)),
    );

    // The lists a subscription filter may follow (the form's picker): names of public data, read-only.
    guarded.get(`${API}/lists`, { config: { auth: 'portal' }, schema }, () => portal.listChoices());

    guarded.get(
      `${API}/deliveries`,
      {
        config: { auth: 'portal' },
        schema: {
          ...schema,
          querystring: Type.Composite([
            DeliveryQuerySchema,
            Type.Object({
              since: Type.Optional(Type.String({ maxLength: 40 })),
              until: Type.Optional(Type.String({ maxLength: 40 })),
              subscriptionId: Type.Optional(Type.String({ maxLength: 64 })),
            }),
          ]),
        },
      },
      (request) => portal.listDeliveries(portalClientOf(request), request.query),
    );
    guarded.get(
      `${API}/deliveries/:id`,
      { config: { auth: 'portal' }, schema: { ...schema, params: IdParams } },
      (request) => portal.delivery(portalClientOf(request), request.params.id),
    );
    guarded.post(
      `${API}/deliveries/:id/retry`,
      {
        config: { auth: 'portal', idempotent: true, audit: 'delivery.retried' },
        schema: { ...schema, params: IdParams },
      },
      (request) => portal.retry(portalClientOf(request), request.params.id, initiatorOf(request)),
    );
    guarded.post(
      `${API}/deliveries/:id/send-now`,
      {
        config: { auth: 'portal', idempotent: true, audit: 'delivery.sent-now' },
        schema: { ...schema, params: IdParams },
      },
      (request) => portal.sendNow(portalClientOf(request), request.params.id, initiatorOf(request)),
    );
  };
  await app.register(guardedRoutes);
};
