/**
 * The operator dashboard: one HTML page plus its script and stylesheet, all from this process
 * (no CDN, no build step). The page itself holds no data and needs no auth; it calls the admin API
 * with the token the operator types in, so the admin API stays the only guarded surface.
 */
import { createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { PAGE_HEADERS } from '../html.js';
import { DASHBOARD_CSP, DASHBOARD_CSS, DASHBOARD_HTML } from './page.js';
import { DASHBOARD_JS } from './script.js';

// Assets change only with a deploy: a content hash lets browsers revalidate cheaply.
const etag = (body: string): string => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

export const dashboardRoutes: FastifyPluginAsync = async (app) => {
  const assets = [
    { url: '/dashboard', type: 'text/html; charset=utf-8', body: DASHBOARD_HTML },
    { url: '/dashboard/app.js', type: 'text/javascript; charset=utf-8', body: DASHBOARD_JS },
    { url: '/dashboard/app.css', type: 'text/css; charset=utf-8', body: DASHBOARD_CSS },
  ];
  for (const asset of assets) {
    const tag = etag(asset.body);
    app.get(asset.url, { schema: { hide: true } }, async (request, reply) => {
      void reply.headers({ ...PAGE_HEADERS, 'content-security-policy': DASHBOARD_CSP, 'cache-control': 'no-cache', etag: tag }).type(asset.type);
      if (request.headers['if-none-match'] === tag) return reply.code(304).send();
      return asset.body;
    });
  }
};
