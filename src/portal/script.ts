/**
 * The partner portal's browser script, served as /portal/app.js (same origin, so the CSP needs no
 * 'unsafe-inline'). The session is an HttpOnly cookie the script cannot read; it keeps only the
 * session's CSRF token in memory. (No backticks or dollar-brace inside: this is a template literal.)
 */
import { COMMON_JS } from '../ops/web-common.js';

export const PORTAL_JS =
  `'use strict';
(function () {
` +
  COMMON_JS +
  String.raw`
  const EVENTS = ['list.published', 'list.status', 'list.created', 'list.updated', 'school.created', 'school.modified'];
  let csrfToken = '';
  let me = null;
  let current = 'credentials';
  const state = { deliveryFilter: {}, pages: [], subscriptions: [] };
  const api = makeApi('/portal/api', () => csrfToken, () => signedOut('Your session ended. Ask your operator for a new sign-in link.'));
  const who = document.getElementById('who');

  async function act(label, method, path, body) {
    const result = await api(method, path, body);
    if (!result.ok) notice(label + ' failed: ' + problemText(result), true);
    else notice(label + ': done.');
    return result;
  }

  function signedOut(message) {
    nav.hidden = true;
    who.textContent = '';
    main.replaceChildren(h('div', { className: 'signin' }, [
      h('h1', {}, 'Signed out'),
      h('p', {}, message || 'Open the sign-in link your operator sent you. Each link works once, for 15 minutes.'),
    ]));
  }

  const sections = {
    async credentials(root) {
      root.append(h('h1', {}, 'Credentials'));
      const out = h('div');
      root.append(h('div', { className: 'panel' }, [
        h('p', {}, [h('strong', {}, 'Client ID: '), h('code', { className: 'secret-value', id: 'client-id' }, me.clientId)]),
        h('p', {}, ['Status: ', badge(me.status), ' · scopes: ', me.scopes.join(', ')]),
        h('p', { className: 'muted' }, ['Tokens minted before ', when(me.tokensValidAfter), ' are refused.']),
      ]));
      root.append(h('h2', {}, 'Client secret'), h('p', { className: 'muted' }, 'Reset it when it may have been exposed. The old secret and every token minted with it stop working at once.'));
      root.append(h('button', { type: 'button', className: 'danger', id: 'reset-secret', onclick: confirmThen('Reset your client secret? The current secret and all its tokens stop working immediately.', async () => {
        const result = await act('Reset client secret', 'POST', '/secret');
        if (result.ok) { out.replaceChildren(secretBox('New client secret', result.data.clientSecret)); await refreshMe(); }
      }) }, 'Reset client secret'));
      root.append(h('h2', {}, 'Webhook secret'), h('p', { className: 'muted' }, 'Webhooks are signed with it. After a rotation the old secret keeps signing for a while, so you can switch receivers without losing a delivery.'));
      root.append(h('button', { type: 'button', className: 'danger', id: 'rotate-webhook-secret', onclick: confirmThen('Rotate your webhook secret?', async () => {
        const result = await act('Rotate webhook secret', 'POST', '/webhook-secret');
        if (result.ok) out.replaceChildren(secretBox('New webhook secret', result.data.webhookSecret, h('p', {}, ['The old secret still signs until ', when(result.data.previousSecretValidUntil), ' (', new Date(result.data.previousSecretValidUntil).toLocaleString(), ').'])));
      }) }, 'Rotate webhook secret'));
      root.append(out);
    },

    async subscriptions(root) {
      root.append(h('h1', {}, 'Subscriptions'));
      const url = h('input', { type: 'url', name: 'notificationUrl', placeholder: 'your receiver URL (https)', required: true, size: 40, maxlength: 2048 });
      const event = select(EVENTS.map((e) => [e, eventName(e) + ' (' + e + ')']), 'list.published', 'Event');
      const formError = h('p', { className: 'error-text', role: 'alert' });
      root.append(inlineForm([field('Receiver URL', url), field('Event', event)], 'Subscribe', async () => {
        formError.textContent = '';
        const result = await act('Create subscription', 'POST', '/subscriptions', { notificationUrl: url.value.trim(), event: event.value });
        if (!result.ok) formError.textContent = problemText(result);
        else show('subscriptions', true);
      }), formError);
      const pingOut = h('div', { id: 'ping-result' });
      const result = await api('GET', '/subscriptions?limit=100');
      if (!result.ok) { root.append(empty('Could not load: ' + problemText(result))); return; }
      state.subscriptions = rowsOf(result.data);
      root.append(pingOut, table(state.subscriptions, [
        ['Receiver', (s) => h('span', { className: 'url' }, s.notificationUrl)],
        ['Event', (s) => eventName(s.event)],
        ['Status', (s) => s.status === 'active' ? (s.failingSince ? [badge('failing', 'failed'), ' since ', when(s.failingSince)] : badge('active')) : [badge('disabled'), ' ', s.disabledReason || '']],
        ['Created', (s) => when(s.createdAt)],
        ['Actions', (s) => {
          const since = h('input', { type: 'datetime-local', 'aria-label': 'Recover failed since' });
          return [
            h('button', { type: 'button', className: 'secondary', disabled: s.status !== 'active', onclick: () => ping(s, pingOut) }, 'Send test ping'),
            h('button', { type: 'button', className: 'secondary', onclick: () => { state.deliveryFilter = { subscriptionId: s.id }; show('deliveries'); } }, 'Deliveries'),
            s.status === 'disabled' ? h('button', { type: 'button', onclick: async () => { if ((await act('Re-enable subscription', 'POST', '/subscriptions/' + encodeURIComponent(s.id) + '/enable')).ok) show('subscriptions', true); } }, 'Re-enable') : null,
            h('span', { className: 'row' }, [since, h('button', { type: 'button', className: 'secondary', onclick: async () => {
              if (!since.value) { notice('Choose the date and time to recover from.', true); return; }
              const r = await act('Recover failed deliveries', 'POST', '/subscriptions/' + encodeURIComponent(s.id) + '/recover', { since: new Date(since.value).toISOString() });
              if (r.ok) notice('Recover failed deliveries: ' + r.data.requeued + ' delivery(ies) queued again.');
            } }, 'Recover failed since…')]),
            h('button', { type: 'button', className: 'danger', onclick: confirmThen('Delete the subscription to ' + s.notificationUrl + '? Its pending deliveries are dropped.', async () => {
              if ((await act('Delete subscription', 'DELETE', '/subscriptions/' + encodeURIComponent(s.id))).ok) show('subscriptions', true);
            }) }, 'Delete'),
          ];
        }, 'actions'],
      ], 'No subscriptions yet. Add a receiver URL above to be notified when lists change.'));
    },

    async deliveries(root) {
      root.append(h('h1', {}, 'Deliveries'));
      const f = state.deliveryFilter;
      const event = select([['', 'any event']].concat(EVENTS.concat(['ping']).map((e) => [e, eventName(e)])), f.event || '', 'Event');
      const status = select([['', 'any status'], ['pending', 'pending'], ['succeeded', 'delivered'], ['failed', 'failed']], f.status || '', 'Status');
      const since = h('input', { type: 'datetime-local', value: f.sinceLocal || '' });
      const until = h('input', { type: 'datetime-local', value: f.untilLocal || '' });
      root.append(inlineForm([field('Event', event), field('Status', status), field('From', since), field('Until', until)], 'Filter', () => {
        state.deliveryFilter = { subscriptionId: f.subscriptionId, event: event.value, status: status.value, sinceLocal: since.value, untilLocal: until.value };
        state.pages = [];
        show('deliveries');
      }));
      if (f.subscriptionId) root.append(h('p', { className: 'muted' }, ['Showing one subscription only. ', h('button', { type: 'button', className: 'secondary', onclick: () => { state.deliveryFilter = {}; state.pages = []; show('deliveries'); } }, 'Show all')]));
      const query = new URLSearchParams({ limit: '20' });
      if (f.event) query.set('event', f.event);
      if (f.status) query.set('status', f.status);
      if (f.sinceLocal) query.set('since', new Date(f.sinceLocal).toISOString());
      if (f.untilLocal) query.set('until', new Date(f.untilLocal).toISOString());
      const after = state.pages[state.pages.length - 1];
      if (after) query.set('starting_after', after);
      const [result, subs] = await Promise.all([api('GET', '/deliveries?' + query.toString()), api('GET', '/subscriptions?limit=100')]);
      if (!result.ok) { root.append(empty('Could not load: ' + problemText(result))); return; }
      const urls = {};
      for (const s of rowsOf(subs.data)) urls[s.id] = s.notificationUrl;
      let rows = rowsOf(result.data);
      if (f.subscriptionId) rows = rows.filter((d) => d.subscriptionId === f.subscriptionId);
      const detail = h('div', { id: 'delivery-detail' });
      root.append(table(rows, [
        ['Created', (d) => when(d.createdAt)],
        ['Event', (d) => eventName(d.event)],
        ['Receiver', (d) => urls[d.subscriptionId] || 'deleted subscription'],
        ['Attempts', (d) => String(d.attemptCount)],
        ['Outcome', (d) => [outcome(d), d.status === 'pending' && d.nextAttemptAt ? [' next ', when(d.nextAttemptAt)] : null]],
        ['Actions', (d) => [
          h('button', { type: 'button', className: 'secondary', onclick: () => showDelivery(d.id, detail) }, 'Attempts'),
          h('button', { type: 'button', className: 'secondary', disabled: d.status === 'pending', onclick: async () => {
            if ((await act('Retry delivery', 'POST', '/deliveries/' + encodeURIComponent(d.id) + '/retry')).ok) { await sleep(1500); show('deliveries', true); showDelivery(d.id, document.getElementById('delivery-detail')); }
          } }, 'Retry'),
        ], 'actions'],
      ], f.status || f.event || f.sinceLocal || f.untilLocal ? 'No delivery matches these filters.' : 'No deliveries yet. They appear here when an event you subscribed to happens; use "Send test ping" on a subscription to try your receiver.'));
      const pager = h('div', { className: 'pager' });
      if (state.pages.length > 0) pager.append(h('button', { type: 'button', className: 'secondary', onclick: () => { state.pages = []; show('deliveries'); } }, 'First page'));
      if (result.data.has_more) pager.append(h('button', { type: 'button', className: 'secondary', onclick: () => { state.pages.push(rows[rows.length - 1].id); show('deliveries'); } }, 'Next page'));
      root.append(pager, detail);
    },
  };

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  async function showDelivery(id, target) {
    const result = await api('GET', '/deliveries/' + encodeURIComponent(id));
    if (!result.ok) { target.replaceChildren(empty(problemText(result))); return; }
    const d = result.data;
    target.replaceChildren(h('div', { className: 'panel' }, [
      h('h2', { title: d.payload.resource + ' ' + d.payload.identifier }, eventName(d.event) + ': ' + d.payload.resource + ' ' + d.payload.identifier.slice(0, 8) + '…'),
      h('p', {}, [outcome(d), ' · created ', when(d.createdAt), ' · delivery id ', h('span', { className: 'id' }, d.id)]),
      attemptsTable(d.attempts),
    ]));
  }

  async function ping(subscription, out) {
    const result = await act('Send test ping', 'POST', '/subscriptions/' + encodeURIComponent(subscription.id) + '/ping');
    if (!result.ok) return;
    const id = result.data.deliveryId;
    out.replaceChildren(h('div', { className: 'panel' }, 'Test ping sent to ' + subscription.notificationUrl + '; waiting for the result…'));
    for (let i = 0; i < 20; i++) {
      await sleep(500);
      const detail = await api('GET', '/deliveries/' + encodeURIComponent(id));
      if (detail.ok && detail.data.attempts.length > 0) {
        const a = detail.data.attempts[detail.data.attempts.length - 1];
        out.replaceChildren(h('div', { className: 'panel' }, [h('strong', {}, 'Test ping result: '), attemptResult(a), ' in ', ms(a.durationMs), ' ', when(a.startedAt)]));
        return;
      }
    }
    out.replaceChildren(h('div', { className: 'panel' }, 'The test ping has not been attempted yet; see Deliveries for its result.'));
  }

  async function refreshMe() {
    const result = await api('GET', '/session');
    if (!result.ok || !result.data.signedIn) return false;
    me = result.data.client;
    csrfToken = result.data.csrfToken;
    who.textContent = '· ' + me.name;
    return true;
  }

  async function show(name, keepNotice) {
    current = name;
    if (!keepNotice) notice('');
    setActive(name);
    const root = h('section', { 'aria-label': name });
    await sections[name](root);
    main.replaceChildren(root);
  }

  for (const button of nav.querySelectorAll('[data-section]')) button.addEventListener('click', () => show(button.dataset.section));
  document.getElementById('sign-out').addEventListener('click', async () => {
    await api('POST', '/sign-out');
    csrfToken = '';
    signedOut('You are signed out. Use a new sign-in link from your operator to come back.');
  });

  async function start() {
    if (location.pathname.replace(/\/$/, '') === '/portal/sign-in') {
      const token = location.hash.slice(1);
      // The one-time token leaves the address bar (and history) at once.
      history.replaceState(null, '', '/portal');
      if (!token) { signedOut('This sign-in link is incomplete. Copy the whole link from your operator.'); return; }
      const result = await api('POST', '/sign-in', { token: token });
      if (!result.ok) { signedOut('This sign-in link is invalid, already used or expired. Ask your operator for a new one.'); return; }
      csrfToken = result.data.csrfToken;
    }
    if (!(await refreshMe())) { signedOut(); return; }
    nav.hidden = false;
    show(current, true);
  }
  start();
})();
`;
