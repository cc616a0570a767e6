/**
 * GET /: a person who opens the service's address in a browser learns what it is and where to go, in
 * their language (the NL | EN switch's cookie, else Accept-Language); a JSON client (Accept:
 * application/json) gets the same links as data, in English as the API speaks. Hidden from the API document.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type MessageKey, translator } from '../i18n/catalogue.js';
import type { Locale } from '../i18n/locale.js';
import { escapeHtml, PAGE_HEADERS } from './html.js';
import { languageSwitch, localized, PAGE_CSP, requestLocale } from './web-assets.js';

const LINKS: readonly (readonly [string, MessageKey, MessageKey])[] = [
  ['/docs', 'home.docs', 'home.docs.what'],
  ['/openapi.json', 'home.openapi', 'home.openapi.what'],
  ['/portal', 'home.portal', 'home.portal.what'],
  ['/dashboard', 'home.console', 'home.console.what'],
  ['/healthz', 'home.liveness', 'home.liveness.what'],
  ['/readyz', 'home.readiness', 'home.readiness.what'],
];

/** The page; with `provider` (OIDC configured), it offers the operators' sign-in through it first. */
function homePage(locale: Locale, provider: string | undefined): string {
  const { t: translate } = translator(locale);
  const t = (key: MessageKey) => escapeHtml(translate(key));
  const intro = t('home.intro').replace('{tokenPath}', '<code>/api/auth/token</code>');
  const signIn =
    provider === undefined
      ? []
      : [
          `<li><a href="/dashboard/login/oidc">${escapeHtml(translate('home.signInWith', { provider }))}</a> <span class="muted">${t('home.signInWith.what')}</span></li>`,
        ];
  const links = LINKS.map(
    ([href, label, what]) => `<li><a href="${href}">${t(label)}</a> <span class="muted">${t(what)}</span></li>`,
  );
  // The switch links relatively (language/nl), as the page lives at /.
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shelfmark</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/app.css">
</head>
<body>
<header><span class="brand">Shelfmark</span> <span class="muted">${t('home.tagline')}</span> ${languageSwitch(locale, '', '')}</header>
<main id="main">
<h1>Shelfmark</h1>
<p>${intro}</p>
<ul class="home-links">
${[...signIn, ...links].join('\n')}
</ul>
</main>
</body>
</html>
`;
}

const english = translator('en').t;

/** The bookmark of the logo: what a browser asks for at /favicon.ico whatever the page links. */
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 22 32">' +
  '<rect x="2" y="4" width="18" height="24" rx="2" fill="#f5c542"/><path d="M8 4v14l3-3 3 3V4z" fill="#b33"/></svg>';

export interface HomeRoutesOptions {
  /** The operators' identity provider by name, when sign-in through it is configured. */
  provider: string | undefined;
}

export const homeRoutes: FastifyPluginAsyncTypebox<HomeRoutesOptions> = async (app, { provider }) => {
  const pages = localized((locale) => homePage(locale, provider));
  app.get('/favicon.ico', { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(ICON_SVG),
  );
  app.get('/', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    void reply.header('vary', 'accept, cookie, accept-language').header('cache-control', 'no-cache');
    const accept = request.headers.accept ?? '';
    if (accept.includes('application/json') && !accept.includes('text/html')) {
      return { service: 'Shelfmark', links: Object.fromEntries(LINKS.map(([href, label]) => [english(label), href])) };
    }
    void reply.headers({ ...PAGE_HEADERS, 'content-security-policy': PAGE_CSP }).type('text/html; charset=utf-8');
    return pages[requestLocale(request)];
  });
};
