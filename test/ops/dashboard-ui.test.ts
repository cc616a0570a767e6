/**
 * The dashboard's script run in a headless DOM (happy-dom) against a real listening instance: sign-in,
 * rendering of admin data as text (never markup), and a mutating action.
 */
import { Window } from 'happy-dom';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DASHBOARD_HTML } from '../../src/ops/dashboard/page.js';
import { DASHBOARD_JS } from '../../src/ops/dashboard/script.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../support/harness.js';

const HOSTILE = '<img src=x onerror="window.pwned=1">Evil & co';

describeEachEngine('operator dashboard in a browser', (engine) => {
  let h: Harness;
  let base: string;
  const windows: Window[] = [];
  beforeAll(async () => {
    h = await createHarness(engine);
    base = await h.listen();
    const created = await h.app.inject({ method: 'POST', url: '/api/admin/v1/clients', headers: h.admin, payload: { name: HOSTILE } });
    expect(created.statusCode).toBe(201);
  });
  afterEach(async () => {
    for (const window of windows.splice(0)) await window.happyDOM.close();
  });
  afterAll(async () => h.close());

  /** Opens the page with the script evaluated, optionally already signed in. */
  async function open(token?: string): Promise<Window> {
    const window = new Window({ url: `${base}/dashboard`, settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true } });
    windows.push(window);
    const body = /<body>([\s\S]*)<\/body>/.exec(DASHBOARD_HTML)?.[1] ?? '';
    window.document.body.innerHTML = body;
    if (token !== undefined) window.sessionStorage.setItem('shelfmark.adminToken', token);
    window.eval(DASHBOARD_JS);
    await settle(window);
    return window;
  }
  const settle = async (window: Window): Promise<void> => {
    // Rendering chains several fetches; wait until the DOM stops changing.
    for (let round = 0; round < 5; round++) await window.happyDOM.waitUntilComplete();
  };
  const text = (window: Window, selector: string): string => window.document.querySelector(selector)?.textContent ?? '';
  const typeInto = (window: Window, selector: string, value: string): void => {
    const field = window.document.querySelector(selector);
    if (!(field instanceof window.HTMLInputElement)) throw new Error(`no input at ${selector}`);
    field.value = value;
  };
  const submit = (window: Window, selector: string): void => {
    window.document.querySelector(selector)?.dispatchEvent(new window.Event('submit', { cancelable: true }));
  };

  it('asks for the token, refuses a wrong one and keeps the right one in sessionStorage only', async () => {
    const window = await open();
    expect(window.document.querySelector('#nav')?.hasAttribute('hidden')).toBe(true);
    typeInto(window, '.signin input', 'wrong-token-0123456789');
    submit(window, '.signin form');
    await settle(window);
    expect(text(window, 'main')).toContain('The admin token was refused');
    expect(window.sessionStorage.getItem('shelfmark.adminToken')).toBeNull();

    typeInto(window, '.signin input', ADMIN_TOKEN);
    submit(window, '.signin form');
    await settle(window);
    expect(window.document.querySelector('#nav')?.hasAttribute('hidden')).toBe(false);
    expect(window.sessionStorage.getItem('shelfmark.adminToken')).toBe(ADMIN_TOKEN);
    expect(window.localStorage.length).toBe(0);
    expect(text(window, 'main')).toContain('API clients');
  });

  it('renders untrusted data as text, never as markup', async () => {
    const window = await open(ADMIN_TOKEN);
    const cells = [...window.document.querySelectorAll('main td')].map((cell) => cell.textContent);
    expect(cells).toContain(HOSTILE);
    expect(window.document.querySelector('main img')).toBeNull();
    expect(Reflect.get(window, 'pwned')).toBeUndefined();
  });

  it('creates a client from the form and shows its secrets once', async () => {
    const window = await open(ADMIN_TOKEN);
    typeInto(window, 'main form.inline input', 'Dashboard shop');
    submit(window, 'main form.inline');
    await settle(window);
    const secret = JSON.parse(text(window, 'pre.secret')) as { name: string; clientSecret: string };
    expect(secret.name).toBe('Dashboard shop');
    expect(secret.clientSecret).toMatch(/^sms_/);
    expect(text(window, '#notice')).toContain('Create client: done.');
    const list = await h.app.inject({ method: 'GET', url: '/api/admin/v1/clients', headers: h.admin });
    expect(list.json<{ data: { name: string }[] }>().data.map((client) => client.name)).toContain('Dashboard shop');
  });

  it('opens every section without a script error', async () => {
    const window = await open(ADMIN_TOKEN);
    for (const section of ['offers', 'lml', 'deliveries', 'subscriptions', 'clients']) {
      const button = window.document.querySelector(`button[data-section="${section}"]`);
      button?.dispatchEvent(new window.MouseEvent('click'));
      await settle(window);
      expect(text(window, 'main h2'), section).not.toBe('');
      expect(text(window, 'main'), section).not.toContain('Could not load');
    }
  });
});
