/**
 * Serving the browser pages' static assets (HTML shells, scripts, stylesheets) from this process:
 * strict security headers on every one, and an ETag so browsers revalidate cheaply.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { PAGE_HEADERS } from './html.js';

/** No inline script or style anywhere, no framing, nothing loaded from another origin. */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface Asset {
  url: string;
  type: string;
  body: string;
}

export const HTML = 'text/html; charset=utf-8';
export const JS = 'text/javascript; charset=utf-8';
export const CSS = 'text/css; charset=utf-8';

const etag = (body: string): string => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

export function serveAssets(app: FastifyInstance, assets: Asset[]): void {
  for (const asset of assets) {
    const tag = etag(asset.body);
    app.get(asset.url, { schema: { hide: true } }, async (request, reply) => {
      void reply.headers({ ...PAGE_HEADERS, 'content-security-policy': PAGE_CSP, 'cache-control': 'no-cache', etag: tag }).type(asset.type);
      if (request.headers['if-none-match'] === tag) return reply.code(304).send();
      return asset.body;
    });
  }
}
