/**
 * The operator console's HTML shell. Static text only: all data is rendered in the browser by
 * app.js with DOM APIs (textContent), so nothing here needs escaping and the CSP can forbid inline
 * script and style entirely. The stylesheet is shared with the partner portal (src/web/app.css).
 */
import { pageShell } from '../ops/web-assets.js';

export const DASHBOARD_HTML = pageShell({
  name: 'operator console',
  base: '/dashboard',
  sections: [
    ['overview', 'Overview'],
    ['clients', 'Clients'],
    ['lml', 'Schools &amp; lists'],
    ['offers', 'Offers'],
    ['subscriptions', 'Subscriptions'],
    ['deliveries', 'Deliveries'],
    ['storage', 'Storage'],
    ['operators', 'Operators'],
    ['audit', 'Audit'],
  ],
  noscript:
    'The console needs JavaScript. The same operations are available in the admin API (see /docs) and the CLI (npx shelfmark).',
  footer: '<a href="/docs">API reference</a> · <a href="/metrics">metrics</a> · <a href="/readyz">readiness</a>',
});
