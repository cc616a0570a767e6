/**
 * The operator console, served as /dashboard/app.js (same origin, so the CSP needs no 'unsafe-inline').
 * Entry point: the sections, the sign-in that exchanges the admin token for a session cookie, and start.
 */

import { problemText } from '../common/api.js';
import { byId, h, main, nav, notice, onSections } from '../common/dom.js';
import { parts, t, wireLanguageSwitch, word } from '../common/i18n.js';
import { go, hooks, router, sections, session, state } from './app.js';
import { audit } from './audit.js';
import { clients } from './clients.js';
import { deliveries } from './deliveries.js';
import { lml } from './lists.js';
import { offers } from './offers.js';
import { operators } from './operators.js';
import { overview } from './overview.js';
import { roleNote, type SignedIn, signedIn, watchControls } from './roles.js';
import { storage } from './storage.js';
import { subscriptions } from './subscriptions.js';

Object.assign(sections, { overview, clients, lml, offers, subscriptions, deliveries, storage, operators, audit });

/** The sign-in the server offers: its identity provider when one is configured (OIDC_ISSUER). */
interface SessionState extends Partial<SignedIn> {
  signedIn: boolean;
  csrfToken?: string;
  oidc?: { name: string; url: string } | null;
}
let provider: SessionState['oidc'] = null;

/** After any sign-in: who it is, what their role shows, and the section the address names. */
function enter(csrfToken: string, who: Partial<SignedIn> = {}): void {
  state.csrfToken = csrfToken;
  signedIn.role = who.role ?? 'admin';
  signedIn.operator = who.operator ?? null;
  const operatorsButton = nav.querySelector<HTMLElement>('[data-section="operators"]');
  if (operatorsButton !== null) operatorsButton.hidden = signedIn.role !== 'admin';
  const name =
    signedIn.operator === null
      ? t('signin.adminToken')
      : (signedIn.operator.email ?? signedIn.operator.name ?? signedIn.operator.sub);
  const whoami = h('span', { id: 'whoami', className: 'muted' }, `${name} · ${word('roles', signedIn.role)}`);
  document.getElementById('whoami')?.remove();
  nav.before(whoami);
  const note = roleNote();
  if (note !== null) byId('notice').before(note);
  watchControls();
  notice('');
  nav.hidden = false;
  // The section the address names: a bookmarked or reloaded address opens where it pointed.
  void go(
    router.current().section === 'operators' && signedIn.role !== 'admin' ? { section: 'overview' } : router.current(),
    { arrived: true },
  );
}

function signIn(message = ''): void {
  state.csrfToken = '';
  nav.hidden = true;
  document.getElementById('whoami')?.remove();
  document.getElementById('role-note')?.remove();
  if (provider) {
    // The operators' own identity provider; the admin token stays the break-glass credential.
    const fallback = tokenForm(message);
    main.replaceChildren(
      h('div', { className: 'signin' }, [
        h('h1', {}, t('signin.title')),
        h('p', { className: 'error-text', role: 'alert' }, message),
        h(
          'p',
          {},
          h(
            'a',
            { className: 'sign-in-provider', href: provider.url, id: 'sign-in-oidc' },
            t('signin.withProvider', { provider: provider.name }),
          ),
        ),
        h('p', { className: 'muted' }, t('signin.providerNote')),
        h('details', {}, [h('summary', {}, t('signin.fallback')), ...fallback]),
      ]),
    );
    return;
  }
  main.replaceChildren(h('div', { className: 'signin' }, [h('h1', {}, t('signin.title')), ...tokenForm(message)]));
  main.querySelector('input')?.focus();
}

/** The admin-token form: the sign-in without an identity provider, and the break-glass beside one. */
function tokenForm(message: string): HTMLElement[] {
  const input = h('input', {
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    placeholder: 'ADMIN_TOKEN',
    required: true,
    'aria-label': t('signin.tokenLabel'),
  });
  const error = h('p', { className: 'error-text', role: 'alert' }, message);
  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await session<{ csrfToken: string }>('POST', '/session', { token: input.value.trim() });
    if (!result.ok) {
      error.textContent = result.status === 401 ? t('signin.tokenRefused') : problemText(result);
      return;
    }
    enter(result.data.csrfToken);
  };
  return [
    h('p', { className: 'muted' }, t('signin.paste')),
    error,
    h('form', { onsubmit: submit }, [input, h('button', { type: 'submit' }, t('signin.button'))]),
    h('h2', {}, t('signin.where')),
    h('p', { id: 'token-source' }, parts('signin.source', { setting: h('code', {}, 'ADMIN_TOKEN') })),
    h(
      'p',
      { id: 'token-reset' },
      parts('signin.reset', {
        command: h('code', {}, 'npx shelfmark admin-token --reset'),
        setting: h('code', {}, 'ADMIN_TOKEN'),
      }),
    ),
  ];
}
hooks.signIn = signIn;

wireLanguageSwitch();
onSections((name) => go({ section: name }));
// Back and Forward: draw the place the browser moved to (its address is already in the bar).
router.onMove((place) => (state.csrfToken === '' ? undefined : go(place, { arrived: true })));
byId('sign-out').addEventListener('click', async () => {
  const result = await session<{ endSessionUrl?: string } | null>('POST', '/sign-out');
  // An operator of the identity provider signs out there too (RP-initiated logout); it sends them back.
  if (result.ok && result.data?.endSessionUrl) {
    window.location.assign(result.data.endSessionUrl);
    return;
  }
  notice(t('signin.signedOut'));
  signIn();
});

void (async function start() {
  const result = await session<SessionState>('GET', '/session');
  if (result.ok) provider = result.data.oidc ?? null;
  if (result.ok && result.data.signedIn && result.data.csrfToken) enter(result.data.csrfToken, result.data);
  else signIn();
})();
