/**
 * Serving the browser pages' static assets (HTML shells, scripts, stylesheets) from this process:
 * strict security headers on every one, and an ETag so browsers revalidate cheaply.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

/** Answers with an asset: the page headers, its ETag, 304 when the browser holds it already. */
export function assetHandler(asset: Omit<Asset, 'url'>) {
  const tag = etag(asset.body);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    void reply
      .headers({ ...PAGE_HEADERS, 'content-security-policy': PAGE_CSP, 'cache-control': 'no-cache', etag: tag })
      .type(asset.type);
    if (request.headers['if-none-match'] === tag) return reply.code(304).send();
    return asset.body;
  };
}

export function serveAssets(app: FastifyInstance, assets: Asset[]): void {
  for (const asset of assets)
    app.get(asset.url, { config: { auth: 'public' }, schema: { hide: true } }, assetHandler(asset));
}

export interface PageShell {
  /** Text after "Shelfmark " in the title and beside the brand, e.g. "partner portal". */
  name: string;
  /** Where app.css and app.js are served, e.g. "/portal". */
  base: string;
  /** Extra header markup after the name (static text only). */
  header?: string;
  /** Section buttons: [data-section, label (already escaped)]. */
  sections: readonly (readonly [string, string])[];
  noscript: string;
  footer: string;
}

/**
 * The HTML shell both browser faces share: static text only; each page's app.js renders all data with
 * DOM APIs, so nothing here needs escaping and the CSP can forbid inline script and style.
 */
export function pageShell(page: PageShell): string {
  const buttons = page.sections
    .map(([section, label]) => `    <button type="button" data-section="${section}">${label}</button>\n`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Shelfmark ${page.name}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${page.base}/app.css">
<script src="${page.base}/app.js" defer></script>
</head>
<body>
<header>
  <span class="brand">Shelfmark</span> <span class="muted">${page.name}</span>${page.header ?? ''}
  <nav id="nav" aria-label="Sections" hidden>
${buttons}    <button type="button" id="sign-out" class="secondary">Sign out</button>
  </nav>
</header>
<div id="notice" role="status" aria-live="polite"></div>
<main id="main">
  <noscript>${page.noscript}</noscript>
</main>
<footer class="muted">${page.footer}</footer>
</body>
</html>
`;
}
