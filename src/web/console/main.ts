/**
 * The operator console, served as /dashboard/app.js (same origin, so the CSP needs no 'unsafe-inline').
 * Entry point: the sections, the sign-in that exchanges the admin token for a session cookie, and start.
 */
import { problemText } from '../common/api.js';
import { byId, h, main, nav, notice, onSections } from '../common/dom.js';
import { go, hooks, router, sections, session, state } from './app.js';
import { clients } from './clients.js';
import { deliveries } from './deliveries.js';
import { lml } from './lists.js';
import { offers } from './offers.js';
import { overview } from './overview.js';
import { storage } from './storage.js';
import { subscriptions } from './subscriptions.js';

Object.assign(sections, { overview, clients, lml, offers, subscriptions, deliveries, storage });

function signIn(message = ''): void {
  state.csrfToken = '';
  nav.hidden = true;
  const input = h('input', {
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    placeholder: 'ADMIN_TOKEN',
    required: true,
    'aria-label': 'Admin token',
  });
  const error = h('p', { className: 'error-text', role: 'alert' }, message);
  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await session<{ csrfToken: string }>('POST', '/session', { token: input.value.trim() });
    if (!result.ok) {
      error.textContent = result.status === 401 ? 'The admin token was refused.' : problemText(result);
      return;
    }
    state.csrfToken = result.data.csrfToken;
    notice('');
    nav.hidden = false;
    // The section the address names: a bookmarked or reloaded address opens where it pointed.
    void go(router.current(), { arrived: true });
  };
  main.replaceChildren(
    h('div', { className: 'signin' }, [
      h('h1', {}, 'Sign in'),
      h(
        'p',
        { className: 'muted' },
        'Paste the admin token. It is exchanged for a session cookie and never stored in the browser.',
      ),
      error,
      h('form', { onsubmit: submit }, [input, h('button', { type: 'submit' }, 'Sign in')]),
      h('h2', {}, 'Where is the admin token?'),
      h('p', { id: 'token-source' }, [
        "It is the server's ",
        h('code', {}, 'ADMIN_TOKEN'),
        ' setting. When that is not set, the server made one on its first start and printed it once in its output, on the line starting "Admin token (generated on first start, shown once…)".',
      ]),
      h('p', { id: 'token-reset' }, [
        'Lost it? On the server, run ',
        h('code', {}, 'npx shelfmark admin-token --reset'),
        ': it prints a new token, and every server refuses the old one within 5 seconds. When ',
        h('code', {}, 'ADMIN_TOKEN'),
        ' is set, change it there instead.',
      ]),
    ]),
  );
  input.focus();
}
hooks.signIn = signIn;

onSections((name) => go({ section: name }));
// Back and Forward: draw the place the browser moved to (its address is already in the bar).
router.onMove((place) => (state.csrfToken === '' ? undefined : go(place, { arrived: true })));
byId('sign-out').addEventListener('click', async () => {
  await session('POST', '/sign-out');
  notice('Signed out.');
  signIn();
});

void (async function start() {
  const result = await session<{ signedIn: boolean; csrfToken?: string }>('GET', '/session');
  if (result.ok && result.data.signedIn && result.data.csrfToken) {
    state.csrfToken = result.data.csrfToken;
    nav.hidden = false;
    void go(router.current(), { arrived: true });
  } else signIn();
})();
