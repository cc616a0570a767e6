/**
 * Serving the browser pages' static assets (HTML shells, scripts, stylesheets) from this process:
 * strict security headers on every one, and an ETag so browsers revalidate cheaply.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type MessageKey, translator } from '../i18n/catalogue.js';
import { LANGUAGE_COOKIE, LOCALES, type Locale, localeOf } from '../i18n/locale.js';
import { escapeHtml, PAGE_HEADERS } from './html.js';

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

/** A page in each language. */
export type Localized = Readonly<Record<Locale, string>>;

export const localized = (render: (locale: Locale) => string): Localized =>
  Object.fromEntries(LOCALES.map((locale) => [locale, render(locale)])) as Record<Locale, string>;

/** The language a request is answered in: the NL | EN switch's cookie, else its Accept-Language. */
export const requestLocale = (request: FastifyRequest): Locale =>
  localeOf(request.cookies?.[LANGUAGE_COOKIE], request.headers['accept-language']);

/** Answers with the page in the request's language (each language its own ETag). */
export function localizedHandler(pages: Localized) {
  const handlers = {
    en: assetHandler({ type: HTML, body: pages.en }),
    nl: assetHandler({ type: HTML, body: pages.nl }),
  } satisfies Record<Locale, unknown>;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    void reply.header('vary', 'cookie, accept-language');
    return handlers[requestLocale(request)](request, reply);
  };
}

/**
 * The header's NL | EN switch: links to GET /language/<locale>, which sets the cookie and sends the
 * browser back (`back`; the pages' scripts add the current address when clicked). `prefix` lets a page
 * at / link relatively.
 */
export function languageSwitch(locale: Locale, back = '', prefix = '/'): string {
  const t = translator(locale).t;
  const query = back === '' ? '' : `?back=${encodeURIComponent(back)}`;
  const link = (to: Locale, label: string) =>
    to === locale
      ? `<a data-lang="${to}" aria-current="true" lang="${to}" href="${prefix}language/${to}${query}">${label}</a>`
      : `<a data-lang="${to}" lang="${to}" href="${prefix}language/${to}${query}">${label}</a>`;
  return `<span class="language" role="group" aria-label="${escapeHtml(t('shell.language'))}">${link('nl', 'NL')} | ${link('en', 'EN')}</span>`;
}

export interface PageShell {
  /** Text after "Shelfmark " in the title and beside the brand, e.g. "partner portal". */
  name: MessageKey;
  /** Where app.css and app.js are served, e.g. "/portal". */
  base: string;
  /** Extra header markup after the name (static text only). */
  header?: string;
  /** Section buttons: [data-section, label]. */
  sections: readonly (readonly [string, MessageKey])[];
  noscript: MessageKey;
  /** Footer links: [href, label]. */
  footer: readonly (readonly [string, MessageKey])[];
}

/**
 * The HTML shell both browser faces share, in one language: static text only; each page's app.js renders
 * all data with DOM APIs (in the language of `<html lang>`), and the CSP forbids inline script and style.
 */
export function pageShell(page: PageShell, locale: Locale = 'en'): string {
  const t = (key: MessageKey) => escapeHtml(translator(locale).t(key));
  const buttons = page.sections
    .map(([section, label]) => `    <button type="button" data-section="${section}">${t(label)}</button>\n`)
    .join('');
  const footer = page.footer.map(([href, label]) => `<a href="${href}">${t(label)}</a>`).join(' · ');
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Shelfmark ${t(page.name)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${page.base}/app.css">
<script src="${page.base}/app.js" defer></script>
</head>
<body>
<header>
  <span class="brand">Shelfmark</span> <span class="muted">${t(page.name)}</span>${page.header ?? ''}
  <nav id="nav" aria-label="${t('shell.sections')}" hidden>
${buttons}    <button type="button" id="sign-out" class="secondary">${t('shell.signOut')}</button>
  </nav>
  ${languageSwitch(locale)}
</header>
<div id="notice" role="status" aria-live="polite"></div>
<main id="main">
  <noscript>${t(page.noscript)}</noscript>
</main>
<footer class="muted">${footer}</footer>
</body>
</html>
`;
}
