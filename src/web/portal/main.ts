/**
 * The partner portal, served as /portal/app.js (same origin, so the CSP needs no 'unsafe-inline').
 * Entry point: the sections, sign-in by one-time link, sign-out, start.
 */
import { byId, nav, onSections } from '../common/dom.js';
import { t, wireLanguageSwitch } from '../common/i18n.js';
import type { Place } from '../common/router.js';
import { api, filterOf, refreshMe, router, sections, show, signedOut, state } from './app.js';
import { credentials } from './credentials.js';
import { deliveries } from './deliveries.js';
import { subscriptions } from './subscriptions.js';

Object.assign(sections, { credentials, subscriptions, deliveries });

wireLanguageSwitch();
onSections((name) => show(name));
/**
 * Arrives at a place named by the address (start, Back, Forward): a delivery's address opens its
 * attempts, and the log's query is its filter.
 */
const arrive = (place: Place) => {
  const log = place.section === 'deliveries';
  state.openDelivery = log ? place.id : '';
  if (log) {
    state.deliveryFilter = filterOf(place.query);
    state.pages = [];
  }
  return show(place.section, false, true);
};
router.onMove((place) => (state.csrfToken === '' ? undefined : arrive(place)));
byId('sign-out').addEventListener('click', async () => {
  await api('POST', '/sign-out');
  state.csrfToken = '';
  signedOut(t('portal.youSignedOut'));
});

async function start(): Promise<void> {
  if (location.pathname.replace(/\/$/, '') === '/portal/sign-in') {
    const token = location.hash.slice(1);
    // The one-time token leaves the address bar (and history) at once.
    history.replaceState(null, '', '/portal');
    if (!token) {
      signedOut(t('portal.linkIncomplete'));
      return;
    }
    const result = await api<{ csrfToken: string }>('POST', '/sign-in', { token });
    if (!result.ok) {
      signedOut(t('portal.linkInvalid'));
      return;
    }
    state.csrfToken = result.data.csrfToken;
  }
  if (!(await refreshMe())) {
    signedOut();
    return;
  }
  nav.hidden = false;
  await arrive(router.current());
}
void start();
