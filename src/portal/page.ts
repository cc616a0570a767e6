/** The partner portal's HTML shell, one per language (see pageShell): portal/app.js renders all data with DOM APIs. */
import { localized, type PageShell, pageShell } from '../pages/web-assets.js';

const PORTAL: PageShell = {
  name: 'shell.portal.name',
  base: '/portal',
  header: ' <span id="who" class="muted"></span>',
  sections: [
    ['credentials', 'nav.credentials'],
    ['subscriptions', 'nav.subscriptions'],
    ['deliveries', 'nav.deliveries'],
  ],
  noscript: 'shell.portal.noscript',
  footer: [['/docs', 'shell.footer.apiReference']],
};

export const PORTAL_PAGES = localized((locale) => pageShell(PORTAL, locale));
/** The English portal (a browser without a Dutch preference gets it). */
export const PORTAL_HTML = PORTAL_PAGES.en;
