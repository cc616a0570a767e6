/**
 * Browser helpers shared by the operator console and the partner portal, prepended to both
 * scripts. Every server value reaches the DOM through textContent/createTextNode (never as HTML);
 * times show relative with the exact local and UTC value on hover; tables carry data-label so the
 * stylesheet can stack them into cards on narrow screens. (No backticks or dollar-brace inside: this
 * is a template literal.)
 */
export const COMMON_JS = String.raw`
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

  // The SVG namespace is an identifier, not a resource: nothing is fetched from it. Spelled in parts so
  // the page's assets stay free of any absolute URL (a test guards that no external reference slips in).
  const SVG_NS = ['http:', '', 'www.w3.org', '2000', 'svg'].join('/');
  function s(tag, attrs, children) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    for (const child of [].concat(children === undefined ? [] : children)) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    return node;
  }

  function notice(text, isError) {
    noticeBox.textContent = text || '';
    noticeBox.className = isError ? 'error' : text ? 'ok' : '';
  }

  function problemText(result) {
    const data = result.data;
    if (data && typeof data === 'object') {
      const parts = [data.detail || data.title || 'HTTP ' + result.status];
      if (Array.isArray(data.errors)) parts.push(data.errors.map((e) => (e.path && e.path !== '/' ? e.path.replace(/^\//, '') + ' ' : '') + (e.message || '')).join('; '));
      return parts.join(': ');
    }
    return 'HTTP ' + result.status;
  }

  /** fetch() wrapper: same-origin cookie, CSRF header on state changes, JSON in and out. */
  function makeApi(base, csrf, onUnauthorized) {
    return async function api(method, path, body) {
      const headers = {};
      if (method !== 'GET') headers['x-csrf-token'] = csrf();
      const init = { method: method, headers: headers, credentials: 'same-origin' };
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        init.body = JSON.stringify(body);
      }
      let response;
      try {
        response = await fetch(base + path, init);
      } catch (error) {
        return { status: 0, ok: false, data: { title: 'Network error', detail: 'the server could not be reached' } };
      }
      const type = response.headers.get('content-type') || '';
      let data = null;
      if (response.status !== 204) data = type.includes('json') ? await response.json().catch(() => null) : await response.text();
      if (response.status === 401 && onUnauthorized) onUnauthorized();
      return { status: response.status, ok: response.ok, data: data };
    };
  }

  const rowsOf = (data) => (Array.isArray(data) ? data : data && Array.isArray(data.data) ? data.data : []);

  function relative(iso) {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) return String(iso);
    const diff = (ms - Date.now()) / 1000;
    const abs = Math.abs(diff);
    const units = [['year', 31536000], ['month', 2592000], ['day', 86400], ['hour', 3600], ['minute', 60], ['second', 1]];
    const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
    for (const [unit, size] of units) if (abs >= size || unit === 'second') return format.format(Math.round(diff / size), unit);
    return iso;
  }

  /** A time shown relative ("5 minutes ago"), exact local and UTC time on hover. */
  function when(iso) {
    if (!iso) return h('span', { className: 'muted' }, '—');
    const local = new Date(iso).toLocaleString();
    return h('time', { datetime: iso, title: local + ' (' + iso + ')', tabindex: '0' }, relative(iso));
  }

  function badge(text, kind) {
    return h('span', { className: 'badge ' + (kind || text) }, text);
  }

  function empty(text) {
    return h('p', { className: 'empty' }, text);
  }

  /** columns: [label, row => value or node]. Each cell is labelled so narrow screens can stack rows. */
  function table(rows, columns, emptyText) {
    if (rows.length === 0) return empty(emptyText || 'Nothing here yet.');
    const head = h('tr', {}, columns.map((col) => h('th', { scope: 'col' }, col[0])));
    const body = rows.map((row) => h('tr', {}, columns.map((col) => {
      const value = col[1](row);
      return h('td', { 'data-label': col[0], className: col[2] || null }, h('div', {}, value === null || value === undefined ? '' : value));
    })));
    return h('div', { className: 'table-wrap' }, h('table', {}, [h('thead', {}, head), h('tbody', {}, body)]));
  }

  const confirmThen = (question, run) => () => { if (window.confirm(question)) run(); };

  function field(label, input) {
    return h('label', { className: 'field' }, [h('span', {}, label), input]);
  }

  const select = (options, value, label) => h('select', { 'aria-label': label || null }, options.map((option) => {
    const pair = Array.isArray(option) ? option : [option, option || 'any'];
    return h('option', { value: pair[0], selected: pair[0] === value }, pair[1]);
  }));

  /** A secret shown once, with a copy button and the warning that it cannot be shown again. */
  function secretBox(title, value, extra) {
    const code = h('code', { className: 'secret-value' }, value);
    const copy = h('button', { type: 'button', className: 'secondary', onclick: async () => {
      try { await navigator.clipboard.writeText(value); copy.textContent = 'Copied'; } catch (error) { copy.textContent = 'Select and copy'; }
    } }, 'Copy');
    return h('div', { className: 'secret', role: 'region', 'aria-label': title }, [
      h('h3', {}, title), h('div', { className: 'secret-row' }, [code, copy]),
      h('p', { className: 'warn' }, 'Copy it now: you will not see this again.'), extra || null,
    ]);
  }

  function inlineForm(fields, label, submit) {
    return h('form', { className: 'inline', onsubmit: (event) => { event.preventDefault(); submit(event.target); } }, fields.concat([h('button', { type: 'submit' }, label)]));
  }

  function ms(value) {
    if (value === null || value === undefined) return '—';
    return value < 1000 ? Math.round(value) + ' ms' : (value / 1000).toFixed(value < 10000 ? 1 : 0) + ' s';
  }

  const EVENT_NAMES = { 'school.created': 'School created', 'school.modified': 'School changed', 'list.created': 'List created', 'list.updated': 'List updated', 'list.status': 'List status changed', 'list.published': 'List published', ping: 'Test ping' };
  const eventName = (event) => EVENT_NAMES[event] || event;

  function outcome(delivery) {
    if (delivery.status === 'succeeded') return badge('delivered', 'succeeded');
    if (delivery.status === 'failed') return badge('failed' + (delivery.lastErrorClass ? ' (' + delivery.lastErrorClass + (delivery.lastStatusCode ? ' ' + delivery.lastStatusCode : '') + ')' : delivery.lastStatusCode ? ' (HTTP ' + delivery.lastStatusCode + ')' : ''), 'failed');
    return badge(delivery.attemptCount > 0 ? 'retrying' : 'pending', 'pending');
  }

  function attemptResult(attempt) {
    if (attempt.errorClass === null && attempt.statusCode !== null && attempt.statusCode < 300) return badge('HTTP ' + attempt.statusCode, 'succeeded');
    return badge(attempt.errorClass ? attempt.errorClass + (attempt.statusCode ? ' (HTTP ' + attempt.statusCode + ')' : '') : 'HTTP ' + attempt.statusCode, 'failed');
  }

  function attemptsTable(attempts) {
    return table(attempts, [
      ['#', (a) => a.attemptNo],
      ['When', (a) => when(a.startedAt)],
      ['Duration', (a) => ms(a.durationMs)],
      ['Result', (a) => attemptResult(a)],
      ['Response', (a) => a.responseBody ? h('code', { className: 'excerpt' }, a.responseBody.slice(0, 300)) : a.errorMessage || '—'],
    ].concat(attempts.length > 0 && attempts[0].requestHeaders ? [['Request headers', (a) => h('pre', { className: 'headers' }, Object.entries(a.requestHeaders).map((pair) => pair[0] + ': ' + pair[1]).join('\n'))]] : []),
    'No attempt yet: the worker sends it within seconds.');
  }

  function setActive(name) {
    for (const button of nav.querySelectorAll('[data-section]')) {
      const active = button.dataset.section === name;
      button.classList.toggle('active', active);
      if (active) button.setAttribute('aria-current', 'page'); else button.removeAttribute('aria-current');
    }
  }
`;

export const WEB_CSS = `
:root { --fg:#1d2330; --muted:#5f6b7a; --line:#d9dee7; --accent:#2456c7; --bad:#b42318; --good:#067647; --warn:#b54708; --bg:#f5f7fa; --card:#fff; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .75rem 1.25rem; background: var(--card); border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; font-size: 1.05rem; }
nav { display: flex; flex-wrap: wrap; gap: .25rem; margin-left: auto; }
nav button { background: transparent; color: var(--fg); border-color: transparent; }
nav button.active { background: #e8eefc; color: var(--accent); border-color: #c5d4f6; }
main { padding: 1rem 1.25rem 2rem; max-width: 80rem; margin: 0 auto; }
footer { padding: 1rem 1.25rem; max-width: 80rem; margin: 0 auto; font-size: .9rem; }
h1 { font-size: 1.35rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: .75rem 0 .4rem; }
a { color: var(--accent); }
.muted { color: var(--muted); }
button { font: inherit; padding: .35rem .75rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 6px; cursor: pointer; min-height: 2.25rem; }
button.secondary { background: var(--card); color: var(--accent); }
button.danger { border-color: var(--bad); background: var(--card); color: var(--bad); }
button:disabled { opacity: .5; cursor: default; }
button:focus-visible, input:focus-visible, select:focus-visible, time:focus-visible, a:focus-visible { outline: 3px solid #8fb0f5; outline-offset: 1px; }
input, select, textarea { font: inherit; padding: .35rem .5rem; border: 1px solid #b9c2cf; border-radius: 6px; background: #fff; min-height: 2.25rem; max-width: 100%; }
form.inline { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; margin: .5rem 0 1rem; padding: .75rem; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
label.field { display: flex; flex-direction: column; gap: .15rem; font-size: .85rem; color: var(--muted); }
label.field input, label.field select { color: var(--fg); }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: break-word; }
th { white-space: nowrap; }
th { background: #eef1f6; font-weight: 600; font-size: .85rem; }
td.actions { white-space: nowrap; }
td.actions > div { display: flex; flex-wrap: wrap; gap: .35rem; align-items: center; }
h1, h2, h3, p, li { overflow-wrap: anywhere; }
td.id, .id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85rem; color: var(--muted); }
time { border-bottom: 1px dotted var(--muted); cursor: help; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 999px; font-size: .8rem; font-weight: 600; background: #eef1f6; color: var(--muted); white-space: nowrap; }
.badge.active, .badge.succeeded, .badge.published { background: #dcfae6; color: var(--good); }
.badge.failed, .badge.revoked, .badge.disabled, .badge.withdrawn { background: #fee4e2; color: var(--bad); }
.badge.pending, .badge.created, .badge.validated, .badge.draft, .badge.reserved { background: #fef0c7; color: var(--warn); }
.empty { padding: 1rem; background: var(--card); border: 1px dashed #b9c2cf; border-radius: 8px; color: var(--muted); }
.secret { background: #fffbe6; border: 1px solid #e9d37a; padding: .75rem 1rem; border-radius: 8px; margin: .75rem 0; }
.secret-row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.secret-value { font-family: ui-monospace, Menlo, monospace; background: #fff; border: 1px solid #e9d37a; padding: .3rem .5rem; border-radius: 4px; overflow-wrap: anywhere; }
.warn { color: var(--warn); font-weight: 600; margin: .4rem 0 0; }
pre.headers, code.excerpt { font: .8rem/1.4 ui-monospace, Menlo, monospace; white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
#notice { max-width: 80rem; }
#notice:not(:empty) { margin: .75rem 1.25rem 0; padding: .5rem .75rem; border-radius: 6px; background: #ecfdf3; border: 1px solid #abefc6; color: var(--good); }
#notice.error { background: #fef3f2; border-color: #f4b8b2; color: var(--bad); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .75rem; margin: .5rem 0 1rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; }
.card .value { font-size: 1.6rem; font-weight: 700; }
.card .label { color: var(--muted); font-size: .85rem; }
.card.bad .value { color: var(--bad); }
.chart { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .75rem; margin: 0; }
.chart svg { width: 100%; height: auto; display: block; }
.chart .legend { display: flex; flex-wrap: wrap; gap: .25rem 1rem; font-size: .85rem; color: var(--muted); }
.chart .legend > span { white-space: nowrap; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .3rem; vertical-align: -1px; }
.swatch.ok { background: #12b76a; } .swatch.fail { background: #f04438; }
.panel { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; margin: .75rem 0; }
.signin { max-width: 30rem; margin: 3rem auto; background: var(--card); border: 1px solid var(--line); padding: 1.25rem; border-radius: 8px; }
.signin input { width: 100%; margin: .5rem 0; }
.tree ul { list-style: none; padding-left: 1rem; margin: .25rem 0; }
.tree > ul { padding-left: 0; }
.tree li { margin: .2rem 0; }
.row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.pager { display: flex; gap: .5rem; margin: .5rem 0; }
@media (max-width: 640px) {
  header { padding: .6rem .75rem; }
  nav { margin-left: 0; width: 100%; }
  main { padding: .75rem; }
  table, thead, tbody, tr, td { display: block; width: 100%; }
  table { border: 0; background: transparent; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  tr { background: var(--card); border: 1px solid var(--line); border-radius: 8px; margin-bottom: .6rem; padding: .3rem .6rem; }
  td { overflow-wrap: anywhere; border: 0; padding: .25rem 0; display: grid; grid-template-columns: 7.5rem minmax(0, 1fr); gap: .5rem; }
  td::before { content: attr(data-label); font-weight: 600; color: var(--muted); font-size: .85rem; }
  td.actions { white-space: normal; }
  td input, td select { width: 100%; min-width: 0; }
  form.inline { flex-direction: column; align-items: stretch; }
  form.inline > * { width: 100%; }
}
`;
