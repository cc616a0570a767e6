/**
 * GET /: a person who opens the service's address in a browser learns what it is and where to go; a
 * JSON client (Accept: application/json) gets the same links as data. Hidden from the API document.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PAGE_HEADERS } from './html.js';
import { PAGE_CSP } from './web-assets.js';

const LINKS = [
  ['/docs', 'API reference', 'every endpoint, its parameters, answers and errors'],
  ['/openapi.json', 'OpenAPI document', 'for code generators and contract tests'],
  ['/portal', 'Partner portal', 'credentials, webhook subscriptions and deliveries (sign-in link from your operator)'],
  ['/dashboard', 'Operator console', 'clients, schools, lists, offers and deliveries (admin token)'],
  ['/healthz', 'Liveness', 'the process answers'],
  ['/readyz', 'Readiness', 'the database answers'],
] as const;

const HOME_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shelfmark</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/app.css">
</head>
<body>
<header><span class="brand">Shelfmark</span> <span class="muted">school-book offers, book lists and signed webhooks</span></header>
<main id="main">
<h1>Shelfmark</h1>
<p>This server offers school-book offers by EAN, learning-material lists and webhooks signed with your secret.
Integrators obtain a token at <code>/api/auth/token</code> (OAuth 2.0 client credentials) and start with the API reference.</p>
<ul class="home-links">
${LINKS.map(([href, label, what]) => `<li><a href="${href}">${label}</a> <span class="muted">${what}</span></li>`).join('\n')}
</ul>
</main>
</body>
</html>
`;

export const homeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    void reply.header('vary', 'accept').header('cache-control', 'no-cache');
    const accept = request.headers.accept ?? '';
    if (accept.includes('application/json') && !accept.includes('text/html')) {
      return { service: 'Shelfmark', links: Object.fromEntries(LINKS.map(([href, label]) => [label, href])) };
    }
    void reply.headers({ ...PAGE_HEADERS, 'content-security-policy': PAGE_CSP }).type('text/html; charset=utf-8');
    return HOME_HTML;
  });
};
