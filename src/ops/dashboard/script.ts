/**
 * The dashboard's browser script, served as /dashboard/app.js (same origin, so the CSP needs no
 * 'unsafe-inline'). Kept as a string so it ships inside dist/ with no build step or asset copying.
 * Rules it follows: every server value is rendered with textContent/createTextNode (never innerHTML);
 * the admin token lives in sessionStorage only (gone when the tab closes); an endpoint that answers
 * 404 route-not-found is shown as "not available", so the page works whatever capabilities exist.
 * (No backticks or dollar-brace inside: this is a template literal.)
 */
export const DASHBOARD_JS = String.raw`'use strict';
(function () {
  const API = '/api/admin/v1';
  const TOKEN_KEY = 'shelfmark.adminToken';
  const OFFER_STATUSES = ['draft', 'published', 'reserved', 'sold', 'withdrawn'];
  const CONDITIONS = ['excellent', 'good', 'acceptable'];
  const LIST_STATUSES = ['created', 'validated', 'published', 'archived'];
  const DELIVERY_STATUSES = ['', 'pending', 'succeeded', 'failed'];
  const main = document.getElementById('main');
  const nav = document.getElementById('nav');
  const noticeBox = document.getElementById('notice');

  function h(tag, props, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else if (key === 'className') node.className = value;
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of [].concat(children === undefined ? [] : children)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function notice(text, isError) {
    noticeBox.textContent = text || '';
    noticeBox.className = isError ? 'error' : '';
  }

  const token = () => sessionStorage.getItem(TOKEN_KEY) || '';

  async function api(method, path, body) {
    const headers = { authorization: 'Bearer ' + token() };
    const init = { method: method, headers: headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(API + path, init);
    } catch (error) {
      return { status: 0, ok: false, missing: false, data: { title: 'Network error', detail: String(error) } };
    }
    const type = response.headers.get('content-type') || '';
    let data = null;
    if (response.status !== 204) data = type.includes('json') ? await response.json().catch(() => null) : await response.text();
    if (response.status === 401) signOut('The admin token was refused; sign in again.');
    const missing = response.status === 405 || (response.status === 404 && data !== null && data.code === 'route-not-found');
    return { status: response.status, ok: response.ok, missing: missing, data: data };
  }

  function problemText(result) {
    const data = result.data;
    if (data && typeof data === 'object') {
      const parts = [data.title || 'HTTP ' + result.status, data.detail].filter(Boolean);
      if (Array.isArray(data.errors)) parts.push(data.errors.map((e) => (e.path || '') + ' ' + (e.message || '')).join('; '));
      return parts.join(': ');
    }
    return 'HTTP ' + result.status;
  }

  /** Runs a mutating call, reports the outcome, then re-renders the current section. */
  async function act(label, method, path, body, onDone) {
    const result = await api(method, path, body);
    if (result.missing) notice(label + ': not available on this server.', true);
    else if (!result.ok) notice(label + ' failed: ' + problemText(result), true);
    else {
      notice(label + ': done.');
      if (onDone) onDone(result.data);
    }
    if (result.ok && !onDone) show(current);
    return result;
  }

  const rowsOf = (data) => (Array.isArray(data) ? data : data && Array.isArray(data.data) ? data.data : []);

  function cell(value) {
    if (value === null || value === undefined) return '';
    if (typeof value === 'object') {
      const text = JSON.stringify(value);
      return text.length > 120 ? text.slice(0, 117) + '...' : text;
    }
    return String(value);
  }

  function table(rows, columns, actions) {
    if (rows.length === 0) return h('p', { className: 'muted' }, 'Nothing here.');
    const cols = columns || Object.keys(rows[0]).slice(0, 9);
    const head = h('tr', {}, cols.map((col) => h('th', {}, col)).concat(actions ? [h('th', {}, '')] : []));
    const body = rows.map((row) =>
      h('tr', {}, cols.map((col) => h('td', {}, cell(row[col]))).concat(actions ? [h('td', { className: 'actions' }, actions(row))] : [])),
    );
    return h('table', {}, [h('thead', {}, head), h('tbody', {}, body)]);
  }

  /** GETs a collection and renders it, or says the endpoint is not available. */
  async function listing(path, columns, actions) {
    const result = await api('GET', path);
    if (result.missing) return h('p', { className: 'unavailable' }, 'Not available on this server (' + path.split('?')[0] + ').');
    if (!result.ok) return h('p', { className: 'unavailable' }, 'Could not load: ' + problemText(result));
    return table(rowsOf(result.data), columns, actions);
  }

  const select = (options, value) => h('select', {}, options.map((option) => h('option', { value: option, selected: option === value }, option || 'any')));
  const confirmThen = (question, run) => () => { if (window.confirm(question)) run(); };

  function secretBox(title, value) {
    return h('div', {}, [h('h3', {}, title), h('p', {}, 'Shown once: copy it now. It cannot be displayed again.'), h('pre', { className: 'secret' }, JSON.stringify(value, null, 2))]);
  }

  function inlineForm(fields, label, submit) {
    return h('form', { className: 'inline', onsubmit: (event) => { event.preventDefault(); submit(); } }, fields.concat([h('button', { type: 'submit' }, label)]));
  }

  const sections = {
    async clients(root) {
      const name = h('input', { placeholder: 'client name', required: true, maxlength: 200 });
      const created = h('div');
      root.append(h('h2', {}, 'API clients'), inlineForm([name], 'Create client', () =>
        act('Create client', 'POST', '/clients', { name: name.value }, (data) => { created.replaceChildren(secretBox('New client credentials', data)); refresh(); })), created);
      const holder = h('div');
      root.append(holder);
      async function refresh() {
        holder.replaceChildren(await listing('/clients', ['id', 'clientId', 'name', 'status', 'scopes', 'createdAt'], (client) => [
          h('button', { className: 'secondary', disabled: client.status === 'revoked', onclick: confirmThen('Reset the secret of ' + client.name + '? Its current secret and tokens stop working.', () =>
            act('Reset secret', 'POST', '/clients/' + encodeURIComponent(client.id) + '/secret', undefined, (data) => created.replaceChildren(secretBox('New client secret for ' + client.name, data)))) }, 'Reset secret'),
          h('button', { className: 'secondary', disabled: client.status === 'revoked', onclick: confirmThen('Rotate the webhook secret of ' + client.name + '?', () =>
            act('Rotate webhook secret', 'POST', '/clients/' + encodeURIComponent(client.id) + '/webhook-secret', undefined, (data) => created.replaceChildren(secretBox('New webhook secret for ' + client.name, data)))) }, 'Rotate webhook secret'),
          h('button', { className: 'danger', disabled: client.status === 'revoked', onclick: confirmThen('Revoke ' + client.name + '? This cannot be undone.', () =>
            act('Revoke client', 'DELETE', '/clients/' + encodeURIComponent(client.id))) }, 'Revoke'),
        ]));
      }
      await refresh();
    },

    async offers(root) {
      const ean = h('input', { placeholder: 'EAN', required: true, inputmode: 'numeric', size: 15 });
      const price = h('input', { placeholder: 'seller price (EUR)', required: true, type: 'number', step: '0.01', min: '0' });
      const condition = select(CONDITIONS, 'good');
      const remarks = h('input', { placeholder: 'remarks (optional)' });
      const status = select(OFFER_STATUSES, 'published');
      root.append(h('h2', {}, 'Offers'), inlineForm([ean, price, condition, remarks, status], 'Create offer', () =>
        act('Create offer', 'POST', '/offers', { ean: ean.value.trim(), price: Number(price.value), condition: condition.value, status: status.value, ...(remarks.value ? { remarks: remarks.value } : {}) })));
      root.append(await listing('/offers', undefined, (offer) => {
        const next = select(OFFER_STATUSES, offer.status);
        return [next, h('button', { className: 'secondary', onclick: () => act('Change offer status', 'PATCH', '/offers/' + encodeURIComponent(offer.id), { status: next.value }) }, 'Set status')];
      }));
    },

    async lml(root) {
      root.append(h('h2', {}, 'Schools'), await listing('/schools'));
      root.append(h('h2', {}, 'Lists'), await listing('/lists', ['identifier', 'slug', 'name', 'school', 'status', 'updatedAt'], (list) => {
        const next = select(LIST_STATUSES, list.status);
        return [next, h('button', { className: 'secondary', onclick: () => act('Change list status', 'POST', '/lists/' + encodeURIComponent(list.identifier) + '/status', { status: next.value }) }, 'Set status')];
      }));
    },

    async deliveries(root) {
      const status = select(DELIVERY_STATUSES, filters.deliveryStatus || '');
      const subscription = h('input', { placeholder: 'subscription id (optional)', value: filters.subscriptionId || '' });
      const attempts = h('div');
      root.append(h('h2', {}, 'Webhook deliveries'), inlineForm([status, subscription], 'Filter', () => {
        filters.deliveryStatus = status.value;
        filters.subscriptionId = subscription.value.trim();
        show('deliveries');
      }));
      const query = new URLSearchParams();
      if (filters.deliveryStatus) query.set('status', filters.deliveryStatus);
      if (filters.subscriptionId) query.set('subscriptionId', filters.subscriptionId);
      const qs = query.toString();
      root.append(await listing('/deliveries' + (qs ? '?' + qs : ''), ['id', 'subscriptionId', 'event', 'status', 'attemptCount', 'nextAttemptAt', 'lastStatusCode', 'lastErrorClass', 'createdAt'], (delivery) => [
        h('button', { className: 'secondary', disabled: delivery.status === 'pending', onclick: () => act('Retry delivery', 'POST', '/deliveries/' + encodeURIComponent(delivery.id) + '/retry') }, 'Retry'),
        h('button', { className: 'secondary', onclick: async () => {
          attempts.replaceChildren(h('h3', {}, 'Attempts of ' + delivery.id));
          const result = await api('GET', '/deliveries/' + encodeURIComponent(delivery.id));
          const rows = result.ok && result.data && Array.isArray(result.data.attempts) ? result.data.attempts : [];
          attempts.append(result.ok ? table(rows) : h('p', { className: 'unavailable' }, result.missing ? 'Not available on this server.' : problemText(result)));
        } }, 'Attempts'),
      ]), attempts);
    },

    async subscriptions(root) {
      root.append(h('h2', {}, 'Webhook subscriptions'), await listing('/subscriptions', undefined, (subscription) =>
        subscription.status === 'active' ? [] : [h('button', { className: 'secondary', onclick: () => act('Re-enable subscription', 'POST', '/subscriptions/' + encodeURIComponent(subscription.id) + '/enable') }, 'Re-enable')]));
    },
  };

  const filters = {};
  let current = 'clients';

  async function show(name) {
    current = name;
    for (const button of nav.querySelectorAll('button[data-section]')) button.classList.toggle('active', button.dataset.section === name);
    const root = h('section');
    main.replaceChildren(h('p', { className: 'muted' }, 'Loading...'));
    await sections[name](root);
    if (token()) main.replaceChildren(root);
  }

  function signIn(message) {
    nav.hidden = true;
    const input = h('input', { type: 'password', autocomplete: 'off', placeholder: 'ADMIN_TOKEN', required: true });
    main.replaceChildren(h('div', { className: 'signin' }, [
      h('h2', {}, 'Sign in'),
      h('p', { className: 'muted' }, 'Paste the admin token. It is kept in this tab only (sessionStorage).'),
      message ? h('p', { className: 'unavailable' }, message) : null,
      h('form', { onsubmit: async (event) => {
        event.preventDefault();
        sessionStorage.setItem(TOKEN_KEY, input.value.trim());
        const probe = await api('GET', '/clients');
        if (probe.status === 401) return;
        notice('');
        nav.hidden = false;
        show(current);
      } }, [input, h('button', { type: 'submit' }, 'Sign in')]),
    ]));
    input.focus();
  }

  function signOut(message) {
    sessionStorage.removeItem(TOKEN_KEY);
    signIn(message);
  }

  for (const button of nav.querySelectorAll('button[data-section]')) button.addEventListener('click', () => { notice(''); show(button.dataset.section); });
  document.getElementById('sign-out').addEventListener('click', () => { notice(''); signOut(); });

  if (token()) { nav.hidden = false; show(current); } else signIn();
})();
`;
