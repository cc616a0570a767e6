/**
 * The operator console's browser script, served as /dashboard/app.js (same origin, so the CSP needs
 * no 'unsafe-inline'). The admin token is typed once and exchanged for an HttpOnly session cookie;
 * the script keeps only the session's CSRF token, in memory. Allowed list status changes come from
 * the server's own table (lml/status.ts), embedded below, so the rule exists once.
 * (No backticks or dollar-brace inside the script: it is a template literal.)
 */
import { TRANSITIONS } from '../../lml/status.js';
import { SCHOOL_TYPES } from '../../lml/views.js';
import { OFFER_CONDITIONS, OFFER_STATUSES } from '../../offers/model.js';
import { COMMON_JS } from '../web-common.js';

export const DASHBOARD_JS =
  `'use strict';
(function () {
  const TRANSITIONS = ` +
  JSON.stringify(TRANSITIONS) +
  `;
  const SCHOOL_TYPES = ` +
  JSON.stringify(SCHOOL_TYPES) +
  `;
  const OFFER_STATUSES = ` +
  JSON.stringify(OFFER_STATUSES) +
  `;
  const CONDITIONS = ` +
  JSON.stringify(OFFER_CONDITIONS) +
  `;
` +
  COMMON_JS +
  `
  let csrfToken = '';
  let current = 'overview';
  const filters = {};
  const api = makeApi('/api/admin/v1', () => csrfToken, () => signIn('Your session ended; sign in again.'));
  const session = makeApi('/dashboard/api', () => csrfToken);

  /** Runs a mutating call and reports the outcome in the notice bar; re-renders unless told not to. */
  async function act(label, method, path, body, options) {
    const result = await api(method, path, body);
    if (!result.ok) notice(label + ' failed: ' + problemText(result), true);
    else {
      notice(label + ': done.' + (options && options.events ? ' Events emitted: ' + (options.events(result.data) || 'none') + '.' : ''));
      if (!(options && options.stay)) await show(current, true);
    }
    return result;
  }

  const euro = (value) => new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(value);

  function chart(buckets) {
    // Drawn at the size it is shown (clamped), so its text stays legible on a phone as on a desktop.
    const width = Math.max(320, Math.min(720, main.clientWidth - 60)), height = width < 500 ? 180 : 220, left = 30, bottom = 28, top = 10;
    const labelEvery = width < 500 ? 6 : 4;
    const max = Math.max(1, ...buckets.map((b) => b.succeeded + b.failed));
    const step = (width - left - 8) / buckets.length;
    const y = (value) => top + (height - top - bottom) * (1 - value / max);
    const parts = [];
    for (const tick of max >= 4 ? [0, Math.round(max / 2), max] : [0, max]) {
      parts.push(s('line', { x1: left, x2: width - 4, y1: y(tick), y2: y(tick), stroke: '#e4e7ec' }));
      parts.push(s('text', { x: left - 6, y: y(tick) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#5f6b7a' }, String(tick)));
    }
    buckets.forEach((b, i) => {
      const x = left + i * step + 2;
      const w = Math.max(2, step - 4);
      const label = new Date(b.hour).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) + ': ' + b.succeeded + ' succeeded, ' + b.failed + ' failed';
      const group = s('g', {}, [s('title', {}, label)]);
      if (b.succeeded > 0) group.append(s('rect', { x: x, y: y(b.succeeded), width: w, height: y(0) - y(b.succeeded), fill: '#12b76a' }));
      if (b.failed > 0) group.append(s('rect', { x: x, y: y(b.succeeded + b.failed), width: w, height: y(b.succeeded) - y(b.succeeded + b.failed), fill: '#f04438' }));
      parts.push(group);
      if (i % labelEvery === 0) parts.push(s('text', { x: x + w / 2, y: height - 8, 'text-anchor': 'middle', 'font-size': 11, fill: '#5f6b7a' }, new Date(b.hour).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })));
    });
    const total = buckets.reduce((sum, b) => sum + b.succeeded + b.failed, 0);
    return h('figure', { className: 'chart' }, [
      s('svg', { viewBox: '0 0 ' + width + ' ' + height, role: 'img', 'aria-label': 'Delivery attempts per hour over the last 24 hours: ' + total + ' in total' }, parts),
      h('figcaption', { className: 'legend' }, [h('span', {}, [h('span', { className: 'swatch ok' }), 'succeeded']), h('span', {}, [h('span', { className: 'swatch fail' }), 'failed']), h('span', {}, total === 0 ? 'No attempts in the last 24 hours.' : total + ' attempts in the last 24 hours')]),
    ]);
  }

  function card(label, value, bad) {
    return h('div', { className: 'card' + (bad ? ' bad' : '') }, [h('div', { className: 'value' }, String(value)), h('div', { className: 'label' }, label)]);
  }

  function listEvents(from, to) {
    if (from === to) return '';
    return to === 'published' ? 'list.status, list.published' : 'list.status';
  }

  const sections = {
    async overview(root) {
      root.append(h('h1', {}, 'Overview'));
      const result = await api('GET', '/overview');
      if (!result.ok) { root.append(empty('Could not load: ' + problemText(result))); return; }
      const o = result.data;
      root.append(h('div', { className: 'cards' }, [
        card('active clients', o.clients), card('subscriptions', o.subscriptions), card('published lists', o.publishedLists), card('published offers', o.publishedOffers),
        card('deliveries queued', o.queueDepth), card('failed in last 24 h', o.failedLast24h, o.failedLast24h > 0), card('p95 commit → delivery (24 h)', ms(o.p95DeliveryLatencyMs)),
      ]));
      root.append(h('h2', {}, 'Delivery attempts per hour, last 24 hours'), chart(o.attemptsPerHour));
      if (o.clients === 0) root.append(empty('No clients yet. Create one under Clients, then send its portal link to the partner.'));
      root.append(h('p', { className: 'muted' }, ['Updated ', when(o.generatedAt), '.']));
    },

    async clients(root) {
      root.append(h('h1', {}, 'API clients'));
      const name = h('input', { name: 'name', placeholder: 'e.g. Boekhandel Noord', required: true, maxlength: 200 });
      const out = h('div', { id: 'client-output' });
      root.append(inlineForm([field('New client name', name)], 'Create client', async () => {
        const result = await act('Create client', 'POST', '/clients', { name: name.value.trim() }, { stay: true });
        if (result.ok) {
          await show('clients', true);
          document.getElementById('client-output').replaceChildren(
            secretBox('Client secret of ' + result.data.name + ' (client id ' + result.data.clientId + ')', result.data.clientSecret),
            secretBox('Webhook secret of ' + result.data.name, result.data.webhookSecret));
        }
      }), out);
      const result = await api('GET', '/clients');
      if (!result.ok) { root.append(empty('Could not load: ' + problemText(result))); return; }
      root.append(table(rowsOf(result.data), [
        ['Name', (c) => h('strong', {}, c.name)],
        ['Client ID', (c) => h('span', { className: 'id' }, c.clientId)],
        ['Scopes', (c) => c.scopes.join(', ')],
        ['Status', (c) => badge(c.status)],
        ['Created', (c) => when(c.createdAt)],
        ['Actions', (c) => c.status === 'revoked' ? h('span', { className: 'muted' }, 'revoked') : [
          h('button', { type: 'button', onclick: async () => {
            const r = await act('Create portal link', 'POST', '/clients/' + encodeURIComponent(c.id) + '/portal-link', undefined, { stay: true });
            if (r.ok) document.getElementById('client-output').replaceChildren(secretBox('Portal sign-in link for ' + c.name, r.data.url, h('p', {}, ['Works once, until ', when(r.data.expiresAt), '. Send it to the partner over a channel you trust.'])));
          } }, 'Portal link'),
          h('button', { type: 'button', className: 'secondary', onclick: confirmThen('Reset the client secret of ' + c.name + '? Its current secret and all its tokens stop working at once.', async () => {
            const r = await act('Reset secret of ' + c.name, 'POST', '/clients/' + encodeURIComponent(c.id) + '/secret', undefined, { stay: true });
            if (r.ok) document.getElementById('client-output').replaceChildren(secretBox('New client secret of ' + c.name, r.data.clientSecret));
          }) }, 'Reset secret'),
          h('button', { type: 'button', className: 'secondary', onclick: confirmThen('Rotate the webhook secret of ' + c.name + '? The old one keeps signing during the overlap.', async () => {
            const r = await act('Rotate webhook secret of ' + c.name, 'POST', '/clients/' + encodeURIComponent(c.id) + '/webhook-secret', undefined, { stay: true });
            if (r.ok) document.getElementById('client-output').replaceChildren(secretBox('New webhook secret of ' + c.name, r.data.webhookSecret, h('p', {}, ['The old secret still signs until ', when(r.data.previousSecretValidUntil), '.'])));
          }) }, 'Rotate webhook secret'),
          h('button', { type: 'button', className: 'danger', onclick: confirmThen('Revoke ' + c.name + '? Its credentials and tokens stop working. This cannot be undone.', () => act('Revoke ' + c.name, 'DELETE', '/clients/' + encodeURIComponent(c.id))) }, 'Revoke'),
        ], 'actions'],
      ], 'No clients yet. Create one above: its secrets are shown once, then send the partner a portal link.'));
    },

    async lml(root) {
      root.append(h('h1', {}, 'Schools & lists'));
      const [schoolsResult, listsResult] = await Promise.all([api('GET', '/schools?limit=200'), api('GET', '/lists?limit=200')]);
      if (!schoolsResult.ok || !listsResult.ok) { root.append(empty('Could not load: ' + problemText(schoolsResult.ok ? listsResult : schoolsResult))); return; }
      const schools = rowsOf(schoolsResult.data);
      const lists = rowsOf(listsResult.data);
      const schoolName = h('input', { name: 'schoolName', required: true, maxlength: 200, placeholder: 'e.g. Hogeschool Amstelland' });
      const schoolType = select(SCHOOL_TYPES, 'HBO', 'School type');
      const location = h('input', { name: 'location', maxlength: 200, placeholder: 'e.g. Amsterdam' });
      root.append(h('h2', {}, 'New school'), inlineForm([field('Name', schoolName), field('Type', schoolType), field('Location (optional)', location)], 'Create school', () =>
        act('Create school ' + schoolName.value.trim(), 'POST', '/schools', { name: schoolName.value.trim(), type: schoolType.value, location: location.value.trim() || null }, { events: () => 'school.created' })));
      if (schools.length > 0) {
        const school = select(schools.map((x) => [x.identifier, x.name]), schools[0].identifier, 'School');
        const listName = h('input', { name: 'listName', required: true, maxlength: 200, placeholder: 'e.g. ICT year 1' });
        const tags = h('input', { name: 'tags', placeholder: 'e.g. Amsterdam, 2026-2027, ICT' });
        root.append(h('h2', {}, 'New list'), inlineForm([field('School', school), field('List name', listName), field('Tags (comma-separated levels)', tags)], 'Create list', () =>
          act('Create list ' + listName.value.trim(), 'POST', '/lists', { school: school.value, name: listName.value.trim(), tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean) }, { events: () => 'list.created, list.status' })));
      }
      root.append(h('h2', {}, 'Tree'));
      if (schools.length === 0) { root.append(empty('No schools yet. Create a school above, then add its lists.')); return; }
      const tree = h('ul');
      for (const school of schools) {
        const own = lists.filter((l) => l.school.identifier === school.identifier);
        const nodes = {};
        const top = h('ul');
        for (const list of own) {
          let parent = top, key = '';
          // The breadcrumb is school name, tags..., list name: the tags are the levels in between.
          for (const tag of (list.breadcrumb || []).slice(1, -1)) {
            key += '/' + tag;
            if (!nodes[key]) { const inner = h('ul'); nodes[key] = inner; parent.append(h('li', {}, [h('span', { className: 'muted' }, tag), inner])); }
            parent = nodes[key];
          }
          parent.append(h('li', {}, listNode(list)));
        }
        tree.append(h('li', {}, [h('strong', {}, school.name), ' ', h('span', { className: 'muted' }, school.type + (school.location ? ' · ' + school.location : '')), own.length === 0 ? h('p', { className: 'muted' }, 'No lists yet: create one above.') : top]));
      }
      root.append(h('div', { className: 'tree panel' }, tree));
    },

    async offers(root) {
      root.append(h('h1', {}, 'Offers'));
      const search = h('input', { name: 'ean', inputmode: 'numeric', placeholder: 'EAN or ISBN-13', value: filters.ean || '' });
      root.append(inlineForm([field('Search by EAN/ISBN', search)], 'Search', () => { filters.ean = search.value.replace(/[^0-9]/g, ''); show('offers'); }));
      const ean = h('input', { name: 'newEan', required: true, inputmode: 'numeric', size: 15, placeholder: '9789001891442' });
      const price = h('input', { name: 'price', required: true, type: 'number', step: '0.01', min: '0.01', placeholder: '12.50' });
      const condition = select(CONDITIONS, 'good', 'Condition');
      const status = select(OFFER_STATUSES, 'published', 'Status');
      root.append(h('h2', {}, 'New offer'), inlineForm([field('EAN/ISBN', ean), field('Seller price (EUR)', price), field('Condition', condition), field('Status', status)], 'Create offer', () =>
        act('Create offer', 'POST', '/offers', { ean: ean.value.replace(/[^0-9]/g, ''), price: Number(price.value), condition: condition.value, status: status.value })));
      const query = new URLSearchParams({ limit: '100' });
      if (filters.ean) query.set('ean', filters.ean);
      const result = await api('GET', '/offers?' + query.toString());
      if (!result.ok) { root.append(empty('Could not load: ' + problemText(result))); return; }
      root.append(h('h2', {}, filters.ean ? 'Offers for ' + filters.ean : 'Offers'), table(rowsOf(result.data), [
        ['EAN', (o) => h('span', { className: 'id' }, o.ean)],
        ['Seller price', (o) => euro(o.sellerPrice)],
        ['Buyer pays', (o) => euro(o.price)],
        ['Condition', (o) => o.condition],
        ['Status', (o) => badge(o.status)],
        ['Updated', (o) => when(o.updatedAt)],
        ['Actions', (o) => {
          const next = select(OFFER_STATUSES, o.status, 'New status');
          return [next,
            h('button', { type: 'button', className: 'secondary', onclick: () => act('Set offer status to ' + next.value, 'PATCH', '/offers/' + o.id, { status: next.value }) }, 'Set status'),
            h('button', { type: 'button', className: 'secondary', onclick: () => {
              const value = window.prompt('New seller price in euros for ' + o.ean, String(o.sellerPrice));
              if (value !== null) act('Change price', 'PATCH', '/offers/' + o.id, { price: Number(value.replace(',', '.')) });
            } }, 'Edit price')];
        }, 'actions'],
      ], filters.ean ? 'No offer for this EAN. Create one above.' : 'No offers yet. Create one above or import a CSV with npx shelfmark offers import.'));
    },

    async subscriptions(root) {
      root.append(h('h1', {}, 'Webhook subscriptions'));
      const [result, health] = await Promise.all([api('GET', '/subscriptions?limit=100'), api('GET', '/subscription-health')]);
      if (!result.ok) { root.append(empty('Could not load: ' + problemText(result))); return; }
      const byId = {};
      for (const row of rowsOf(health.data)) byId[row.subscriptionId] = row;
      root.append(table(rowsOf(result.data), [
        ['Client', (x) => h('strong', {}, x.client.name)],
        ['Receiver', (x) => x.notificationUrl],
        ['Event', (x) => eventName(x.canonicalEvent)],
        ['Health', (x) => x.status === 'disabled' ? [badge('disabled'), ' ', x.disabledReason || ''] : x.failingSince ? [badge('failing', 'failed'), ' since ', when(x.failingSince)] : badge('active')],
        ['Last success', (x) => when(byId[x.id] && byId[x.id].lastSuccessAt)],
        ['Failures in a row', (x) => String(byId[x.id] ? byId[x.id].consecutiveFailures : 0)],
        ['Actions', (x) => [
          h('button', { type: 'button', className: 'secondary', onclick: () => { filters.subscriptionId = x.id; show('deliveries'); } }, 'Deliveries'),
          x.status === 'disabled' ? h('button', { type: 'button', onclick: () => act('Re-enable subscription', 'POST', '/subscriptions/' + encodeURIComponent(x.id) + '/enable') }, 'Re-enable') : null,
        ], 'actions'],
      ], 'No subscriptions yet. Partners add them in their portal (send them a portal link from Clients).'));
    },

    async deliveries(root) {
      root.append(h('h1', {}, 'Delivery log'));
      const status = select([['', 'any status'], ['pending', 'pending'], ['succeeded', 'delivered'], ['failed', 'failed']], filters.status || '', 'Status');
      root.append(inlineForm([field('Status', status)], 'Filter', () => { filters.status = status.value; show('deliveries'); }));
      if (filters.subscriptionId) root.append(h('p', { className: 'muted' }, ['One subscription only. ', h('button', { type: 'button', className: 'secondary', onclick: () => { filters.subscriptionId = ''; show('deliveries'); } }, 'Show all')]));
      const query = new URLSearchParams({ limit: '50' });
      if (filters.status) query.set('status', filters.status);
      if (filters.subscriptionId) query.set('subscriptionId', filters.subscriptionId);
      const [result, subs] = await Promise.all([api('GET', '/deliveries?' + query.toString()), api('GET', '/subscriptions?limit=100')]);
      if (!result.ok) { root.append(empty('Could not load: ' + problemText(result))); return; }
      const subscriptions = {};
      for (const x of rowsOf(subs.data)) subscriptions[x.id] = x;
      const detail = h('div');
      root.append(table(rowsOf(result.data), [
        ['Created', (d) => when(d.createdAt)],
        ['Client', (d) => subscriptions[d.subscriptionId] ? subscriptions[d.subscriptionId].client.name : 'deleted subscription'],
        ['Receiver', (d) => subscriptions[d.subscriptionId] ? subscriptions[d.subscriptionId].notificationUrl : '—'],
        ['Event', (d) => eventName(d.event)],
        ['Attempts', (d) => String(d.attemptCount)],
        ['Outcome', (d) => outcome(d)],
        ['Actions', (d) => [
          h('button', { type: 'button', className: 'secondary', onclick: async () => {
            const r = await api('GET', '/deliveries/' + encodeURIComponent(d.id));
            detail.replaceChildren(h('div', { className: 'panel' }, [h('h2', {}, 'Attempts of ' + eventName(d.event) + ' to ' + (subscriptions[d.subscriptionId] ? subscriptions[d.subscriptionId].notificationUrl : d.subscriptionId)), r.ok ? attemptsTable(r.data.attempts) : empty(problemText(r))]));
          } }, 'Attempts'),
          h('button', { type: 'button', className: 'secondary', disabled: d.status === 'pending', onclick: () => act('Retry delivery', 'POST', '/deliveries/' + encodeURIComponent(d.id) + '/retry') }, 'Retry'),
        ], 'actions'],
      ], 'No deliveries match. Deliveries appear when an event happens for a subscription.'), detail);
    },
  };

  function listNode(list) {
    const allowed = TRANSITIONS[list.status] || [];
    return h('span', { className: 'row' }, [
      h('span', {}, list.name), badge(list.status), h('span', { className: 'muted' }, (list.items ? list.items.length : 0) + ' items · updated '), when(list.updatedAt),
      h('button', { type: 'button', className: 'secondary', onclick: () => {
        const value = window.prompt('New name for ' + list.name, list.name);
        if (value !== null && value.trim() !== '' && value.trim() !== list.name) act('Rename list', 'PATCH', '/lists/' + encodeURIComponent(list.identifier), { name: value.trim() }, { events: () => 'list.updated' });
      } }, 'Rename'),
    ].concat(allowed.map((to) => h('button', { type: 'button', className: to === 'archived' ? 'danger' : 'secondary', onclick: () => {
      const run = () => act('List ' + list.name + ' is now ' + to, 'POST', '/lists/' + encodeURIComponent(list.identifier) + '/status', { status: to }, { events: () => listEvents(list.status, to) });
      if (to === 'archived') confirmThen('Archive ' + list.name + '? It disappears from the public lists.', run)(); else run();
    } }, to === 'published' ? 'Publish' : to === 'validated' ? 'Mark validated' : to === 'archived' ? 'Archive' : 'Back to draft'))));
  }

  async function show(name, keepNotice) {
    current = name;
    if (!keepNotice) notice('');
    setActive(name);
    const root = h('section', { 'aria-label': name });
    await sections[name](root);
    if (csrfToken) main.replaceChildren(root);
  }

  function signIn(message) {
    csrfToken = '';
    nav.hidden = true;
    const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', placeholder: 'ADMIN_TOKEN', required: true, 'aria-label': 'Admin token' });
    const error = h('p', { className: 'error-text', role: 'alert' }, message || '');
    main.replaceChildren(h('div', { className: 'signin' }, [
      h('h1', {}, 'Sign in'),
      h('p', { className: 'muted' }, 'Paste the admin token. It is exchanged for a session cookie and never stored in the browser.'),
      error,
      h('form', { onsubmit: async (event) => {
        event.preventDefault();
        const result = await session('POST', '/session', { token: input.value.trim() });
        if (!result.ok) { error.textContent = result.status === 401 ? 'The admin token was refused.' : problemText(result); return; }
        csrfToken = result.data.csrfToken;
        notice('');
        nav.hidden = false;
        show(current);
      } }, [input, h('button', { type: 'submit' }, 'Sign in')]),
    ]));
    input.focus();
  }

  for (const button of nav.querySelectorAll('[data-section]')) button.addEventListener('click', () => show(button.dataset.section));
  document.getElementById('sign-out').addEventListener('click', async () => {
    await session('POST', '/sign-out');
    notice('Signed out.');
    signIn();
  });

  (async function start() {
    const result = await session('GET', '/session');
    if (result.ok && result.data.signedIn) { csrfToken = result.data.csrfToken; nav.hidden = false; show(current); } else signIn();
  })();
})();
`;
