/**
 * The console's sign-in through the operators' OpenID Connect provider, on fixed paths other tools can
 * drive: GET /dashboard/login/oidc answers 302 to the provider (state, nonce, PKCE); the provider sends
 * the browser back to GET /dashboard/login/oidc/callback, which opens the console session (the same
 * cookie, CSRF token and idle timeout as the admin-token sign-in) and answers 302 to /dashboard. A
 * refused sign-in answers a page that says why, and opens no session.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { cookieOptions } from '../http/cookies.js';
import { translator } from '../i18n/catalogue.js';
import type { Locale } from '../i18n/locale.js';
import { escapeHtml, PAGE_HEADERS } from '../pages/html.js';
import { languageSwitch, PAGE_CSP, requestLocale } from '../pages/web-assets.js';
import { originOf } from '../vocabulary/actor.js';
import { type OperatorService, SIGN_IN_TTL_MS, SignInRefused } from './operator-service.js';
import type { RefusalWords } from './refusals.js';
import { setSessionCookie } from './session-guard.js';
import { CONSOLE_COOKIE } from './sessions.js';

/** The sign-in in progress. SameSite=Lax, not Strict: it must come back with the provider's redirect. */
export const SIGN_IN_COOKIE = 'shelfmark_oidc';
const SIGN_IN_PATH = '/dashboard/login/oidc';

/** The reason as a sentence: a capital first, a full stop last. */
const sentence = (text: string): string => {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
};

/**
 * The page of a refused sign-in, in the visitor's language. Its switch leads to the sign-in page in the
 * other language: the refused callback cannot be shown again.
 */
export function refusalPage(words: RefusalWords, locale: Locale = 'en'): string {
  const { t } = translator(locale);
  const title = escapeHtml(t('refusal.title'));
  const name = escapeHtml(t('shell.console.name'));
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Shelfmark ${name}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/app.css">
</head>
<body>
<header><span class="brand">Shelfmark</span> <span class="muted">${name}</span> ${languageSwitch(locale, '/dashboard')}</header>
<main id="main">
  <div class="signin">
    <h1>${title}</h1>
    <p class="error-text" role="alert">${escapeHtml(sentence(t(words.key, words.params)))}</p>
    <p><a href="/dashboard">${escapeHtml(t('refusal.back'))}</a></p>
  </div>
</main>
</body>
</html>
`;
}

function page(reply: FastifyReply, status: number, body: string) {
  return reply
    .code(status)
    .headers({ ...PAGE_HEADERS, 'content-security-policy': PAGE_CSP, 'cache-control': 'no-store' })
    .type('text/html; charset=utf-8')
    .send(body);
}

export const oidcRoutes: FastifyPluginAsync<{ operators: OperatorService }> = async (app, { operators }) => {
  const schema = { hide: true } as const;
  const refused = (request: FastifyRequest, reply: FastifyReply, error: unknown) => {
    if (!(error instanceof SignInRefused)) throw error;
    return page(reply, error.status, refusalPage(error.words, requestLocale(request)));
  };

  app.get(SIGN_IN_PATH, { config: { auth: 'public' }, schema }, async (request, reply) => {
    // Opened on another host name than the provider returns to (localhost for 127.0.0.1, say): start
    // over there, or the sign-in cookie would be set on a host the callback never reaches.
    const home = operators.oidc?.origin;
    if (home !== undefined && `${request.protocol}://${request.host}` !== home)
      return reply.header('cache-control', 'no-store').redirect(`${home}${SIGN_IN_PATH}`, 302);
    try {
      const { url, cookieValue } = await operators.beginSignIn();
      void reply.setCookie(SIGN_IN_COOKIE, cookieValue, {
        ...cookieOptions(request, SIGN_IN_TTL_MS / 1000),
        sameSite: 'lax',
        path: SIGN_IN_PATH,
      });
      return reply.header('cache-control', 'no-store').redirect(url, 302);
    } catch (error) {
      return refused(request, reply, error);
    }
  });

  app.get(`${SIGN_IN_PATH}/callback`, { config: { auth: 'public' }, schema }, async (request, reply) => {
    // Used or not, the sign-in cookie has done its job.
    void reply.clearCookie(SIGN_IN_COOKIE, { path: SIGN_IN_PATH });
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    try {
      const { sessionId } = await operators.completeSignIn(request.cookies[SIGN_IN_COOKIE], query, originOf(request));
      setSessionCookie(request, reply, CONSOLE_COOKIE, sessionId);
      return reply.header('cache-control', 'no-store').redirect('/dashboard', 302);
    } catch (error) {
      return refused(request, reply, error);
    }
  });
};
