/**
 * The operator console's HTML shell, one per language. Static text only: all data is rendered in the
 * browser by app.js with DOM APIs (textContent), so the CSP can forbid inline script and style
 * entirely. The stylesheet is shared with the partner portal (src/web/app.css).
 */
import { localized, type PageShell, pageShell } from './web-assets.js';

const CONSOLE: PageShell = {
  name: 'shell.console.name',
  base: '/dashboard',
  sections: [
    ['overview', 'nav.overview'],
    ['clients', 'nav.clients'],
    ['lml', 'nav.lml'],
    ['offers', 'nav.offers'],
    ['subscriptions', 'nav.subscriptions'],
    ['deliveries', 'nav.deliveries'],
    ['storage', 'nav.storage'],
    ['operators', 'nav.operators'],
    ['audit', 'nav.audit'],
  ],
  noscript: 'shell.console.noscript',
  footer: [
    ['/docs', 'shell.footer.apiReference'],
    ['/metrics', 'shell.footer.metrics'],
    ['/readyz', 'shell.footer.readiness'],
  ],
};

export const DASHBOARD_PAGES = localized((locale) => pageShell(CONSOLE, locale));
/** The English console (a browser without a Dutch preference gets it). */
export const DASHBOARD_HTML = DASHBOARD_PAGES.en;
