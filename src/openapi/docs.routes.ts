/**
 * The API's self-description: the OpenAPI 3.1 document, a readable reference page (Swagger UI served
 * from the installed package, so it works offline and behind strict firewalls), and one page per
 * problem type, so the `type` URI of every error body resolves to an explanation.
 */
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { escapeHtml, PAGE_HEADERS } from '../pages/html.js';
import { PROBLEMS, Problem, type ProblemCode } from '../problems/catalogue.js';
import { PROBLEM_HINTS } from './problem-hints.js';

// Swagger UI renders with inline style attributes (React); scripts and everything else stay same-origin.
const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="32" viewBox="0 0 150 32">' +
  '<rect x="2" y="4" width="18" height="24" rx="2" fill="#f5c542"/><path d="M8 4v14l3-3 3 3V4z" fill="#b33"/>' +
  '<text x="28" y="23" font-family="system-ui,sans-serif" font-size="19" font-weight="600" fill="#fff">Shelfmark</text></svg>';

const DOCS_THEME_CSS = [
  '.swagger-ui .topbar { background: #1f3a5f; }',
  '.swagger-ui .topbar .download-url-wrapper { display: none; }',
  '.swagger-ui .topbar-wrapper img { height: 32px; }',
].join('\n');

const PROBLEM_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const isProblemCode = (code: string): code is ProblemCode => Object.hasOwn(PROBLEMS, code);

export function problemPage(code: ProblemCode): string {
  const { status, title } = PROBLEMS[code];
  const hint = PROBLEM_HINTS[code] ?? 'The detail member of the error body says what went wrong.';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} (${status})</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#222}code{background:#f2f2f2;padding:.1rem .3rem;border-radius:3px}</style>
</head><body>
<h1>${escapeHtml(title)}</h1>
<p>HTTP status <strong>${status}</strong>, problem code <code>${escapeHtml(code)}</code>.</p>
<p>${escapeHtml(hint)}</p>
<p>Error bodies are <code>application/problem+json</code> (RFC 9457): <code>type</code> is this page's path,
<code>instance</code> is the request id (also in the <code>x-request-id</code> header); quote it when reporting a problem.</p>
<p><a href="/docs">API reference</a></p>
</body></html>
`;
}

export const docsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Every HTML page here (the API reference, problem pages) gets the page headers the dashboard has;
  // the security suite found the API reference without them.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) void reply.headers(PAGE_HEADERS);
    return payload;
  });

  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) => {
    void reply.type('application/json; charset=utf-8');
    return app.swagger();
  });

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: DOCS_CSP,
    // No third-party validator badge: the page must make no request off this origin.
    validatorUrl: false,
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: false },
    theme: {
      title: 'Shelfmark API reference',
      // Shelfmark's name in the top bar instead of the renderer's, and no "Explore" box: this page
      // documents this server's document and nothing else.
      css: [{ filename: 'shelfmark.css', content: DOCS_THEME_CSS }],
      // One scalable SVG: the browser draws it at whatever size it needs (the field is required here).
      favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: '32x32', content: LOGO_SVG }],
    },
    logo: { type: 'image/svg+xml', content: LOGO_SVG, href: '/', target: '_self' },
  });

  app.get(
    '/problems/:code',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getProblemType',
        documentedResponses: {
          200: {
            description: 'A page explaining the problem type',
            content: {
              'text/html': {
                schema: { type: 'string' },
                example: '<!doctype html><title>invalid-ean</title><h1>invalid-ean</h1><p>…</p>',
              },
            },
          },
        },
        tags: ['operations'],
        summary: 'Explains one problem type (the `type` member of an error body)',
        params: Type.Object({ code: Type.String({ maxLength: 64 }) }),
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const { code } = request.params;
      if (!isProblemCode(code)) throw new Problem('not-found', `there is no problem type "${code.slice(0, 64)}"`);
      void reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', PROBLEM_CSP)
        .header('cache-control', 'public, max-age=3600');
      return problemPage(code);
    },
  );
};
