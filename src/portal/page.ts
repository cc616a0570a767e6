/** The partner portal's HTML shell (see pageShell): portal/app.js renders all data with DOM APIs. */
import { pageShell } from '../ops/web-assets.js';

export const PORTAL_HTML = pageShell({
  name: 'partner portal',
  base: '/portal',
  header: ' <span id="who" class="muted"></span>',
  sections: [
    ['credentials', 'Credentials'],
    ['subscriptions', 'Subscriptions'],
    ['deliveries', 'Deliveries'],
  ],
  noscript: 'The portal needs JavaScript. The same operations are available in the API (see /docs).',
  footer: '<a href="/docs">API reference</a>',
});
