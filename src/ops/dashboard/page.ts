/**
 * The operator console's HTML shell. Static text only: all data is rendered in the browser by
 * app.js with DOM APIs (textContent), so nothing here needs escaping and the CSP can forbid inline
 * script and style entirely. The stylesheet is shared with the partner portal (ops/web-common.ts).
 */
import { PAGE_CSP } from '../web-assets.js';

export const DASHBOARD_CSP = PAGE_CSP;

export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Shelfmark operator console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/app.css">
<script src="/dashboard/app.js" defer></script>
</head>
<body>
<header>
  <span class="brand">Shelfmark</span> <span class="muted">operator console</span>
  <nav id="nav" aria-label="Sections" hidden>
    <button type="button" data-section="overview">Overview</button>
    <button type="button" data-section="clients">Clients</button>
    <button type="button" data-section="lml">Schools &amp; lists</button>
    <button type="button" data-section="offers">Offers</button>
    <button type="button" data-section="subscriptions">Subscriptions</button>
    <button type="button" data-section="deliveries">Deliveries</button>
    <button type="button" id="sign-out" class="secondary">Sign out</button>
  </nav>
</header>
<div id="notice" role="status" aria-live="polite"></div>
<main id="main">
  <noscript>The console needs JavaScript. The same operations are available in the admin API (see /docs) and the CLI (npx shelfmark).</noscript>
</main>
<footer class="muted"><a href="/docs">API reference</a> · <a href="/metrics">metrics</a> · <a href="/readyz">readiness</a></footer>
</body>
</html>
`;
