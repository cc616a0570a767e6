/**
 * The operator console's page: one HTML page per language plus its script and stylesheet, all from
 * this process (no CDN, no build step), at the address of every section it draws. It signs in and
 * out through identity/console-session.routes.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { serveAppPaths } from './app-paths.js';
import { DASHBOARD_PAGES } from './console-page.js';
import { CSS, JS, localizedHandler, serveAssets } from './web-assets.js';
import { loadWebAssets } from './web-bundle.js';

export const consolePageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const web = await loadWebAssets();
  // The page in the visitor's language (cookie or Accept-Language).
  app.get('/dashboard', { config: { auth: 'public' }, schema: { hide: true } }, localizedHandler(DASHBOARD_PAGES));
  serveAssets(app, [
    { url: '/dashboard/app.js', type: JS, body: web.consoleJs },
    { url: '/dashboard/app.css', type: CSS, body: web.css },
  ]);
  // /dashboard/deliveries, /dashboard/lists/<identifier>, …: the page, which draws the section its address names.
  serveAppPaths(app, {
    base: '/dashboard',
    sections: [
      'overview',
      'clients',
      'lists',
      'offers',
      'subscriptions',
      'deliveries',
      'storage',
      'operators',
      'audit',
    ],
    html: DASHBOARD_PAGES,
  });
};
