/** The partner portal's HTML shell: static text only; portal/app.js renders all data with DOM APIs. */
export const PORTAL_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Shelfmark partner portal</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/portal/app.css">
<script src="/portal/app.js" defer></script>
</head>
<body>
<header>
  <span class="brand">Shelfmark</span> <span class="muted">partner portal</span> <span id="who" class="muted"></span>
  <nav id="nav" aria-label="Sections" hidden>
    <button type="button" data-section="credentials">Credentials</button>
    <button type="button" data-section="subscriptions">Subscriptions</button>
    <button type="button" data-section="deliveries">Deliveries</button>
    <button type="button" id="sign-out" class="secondary">Sign out</button>
  </nav>
</header>
<div id="notice" role="status" aria-live="polite"></div>
<main id="main">
  <noscript>The portal needs JavaScript. The same operations are available in the API (see /docs).</noscript>
</main>
<footer class="muted"><a href="/docs">API reference</a></footer>
</body>
</html>
`;
