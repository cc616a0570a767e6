/**
 * The dashboard's HTML shell and stylesheet. Static text only: all data is rendered in the browser
 * by app.js with DOM APIs (textContent), so nothing here needs escaping and the CSP can forbid inline
 * script and style entirely.
 */

export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Shelfmark dashboard</title>
<link rel="stylesheet" href="/dashboard/app.css">
<script src="/dashboard/app.js" defer></script>
</head>
<body>
<header>
  <strong>Shelfmark</strong> <span class="muted">operator dashboard</span>
  <nav id="nav" hidden>
    <button type="button" data-section="clients">Clients</button>
    <button type="button" data-section="offers">Offers</button>
    <button type="button" data-section="lml">Schools &amp; lists</button>
    <button type="button" data-section="deliveries">Deliveries</button>
    <button type="button" data-section="subscriptions">Subscriptions</button>
    <button type="button" id="sign-out" class="secondary">Sign out</button>
  </nav>
</header>
<div id="notice" role="status" aria-live="polite"></div>
<main id="main">
  <noscript>The dashboard needs JavaScript. The same operations are available in the admin API (see /docs) and the CLI (npx shelfmark).</noscript>
</main>
<footer class="muted"><a href="/docs">API reference</a> · <a href="/metrics">metrics</a> · <a href="/readyz">readiness</a></footer>
</body>
</html>
`;

export const DASHBOARD_CSS = `
:root { --fg:#1d2330; --muted:#667085; --line:#d9dee7; --accent:#2456c7; --bad:#b42318; --good:#067647; --bg:#f7f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; padding: .75rem 1.25rem; background: #fff; border-bottom: 1px solid var(--line); }
nav { display: flex; flex-wrap: wrap; gap: .25rem; margin-left: auto; }
main { padding: 1rem 1.25rem; max-width: 90rem; }
footer { padding: 1rem 1.25rem; }
h2 { font-size: 1.15rem; margin: 1.25rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .4rem; }
.muted { color: var(--muted); }
button { font: inherit; padding: .3rem .65rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; cursor: pointer; }
button.secondary, nav button { background: #fff; color: var(--accent); }
nav button.active { background: var(--accent); color: #fff; }
button.danger { border-color: var(--bad); background: #fff; color: var(--bad); }
button:disabled { opacity: .5; cursor: default; }
input, select { font: inherit; padding: .28rem .45rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
form.inline { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: .5rem 0; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; max-width: 28rem; overflow-wrap: anywhere; }
th { background: #eef1f6; font-weight: 600; }
td.actions { white-space: nowrap; }
td.actions > * { margin-right: .25rem; }
pre.secret { background: #fffbe6; border: 1px solid #e9d37a; padding: .75rem; overflow-x: auto; }
#notice:not(:empty) { margin: .75rem 1.25rem 0; padding: .5rem .75rem; border-radius: 4px; background: #eef4ff; border: 1px solid #b3c7f2; }
#notice.error { background: #fef3f2; border-color: #f4b8b2; color: var(--bad); }
.unavailable { color: var(--muted); font-style: italic; }
.signin { max-width: 28rem; margin: 3rem auto; background: #fff; border: 1px solid var(--line); padding: 1.25rem; border-radius: 6px; }
.signin input { width: 100%; margin: .5rem 0; }
`;
