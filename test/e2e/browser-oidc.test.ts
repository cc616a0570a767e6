/**
 * Operators by name in a real browser (Debian's Chromium via playwright-core): the console's sign-in
 * page offers the operators' identity provider (a real oidc-provider in its own process), an admin
 * and a support operator sign in through the provider's login page, the console shows each their
 * role (the support operator's admin-only buttons disabled with the reason, no Operators section),
 * the admin disables the support operator from the Operators page and their open console ends at
 * once, an identity without a role gets the refusal page, and signing out ends the provider's
 * session too. Screenshots at 1280 and 390 px go to test-artifacts/screenshots (oidc-*).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type Account, CLIENT_ID, CLIENT_SECRET, startProvider, type TestProvider } from '../operators/support.js';
import { launchBrowser, skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { freePort } from '../support/free-port.js';
import { createHarness, type Harness } from '../support/harness.js';

const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const ACCOUNTS: Record<string, Account> = {
  alice: { password: 'alice-pw', email: 'alice@example.test', name: 'Alice Admin', groups: ['shelfmark-admins'] },
  sam: { password: 'sam-pw', email: 'sam@example.test', name: 'Sam Support', groups: ['support'] },
  nora: { password: 'nora-pw', email: 'nora@example.test', name: 'Nora Nobody', groups: ['staff'] },
};

describeEachEngine('operators sign in through their identity provider, in a browser', (engine) => {
  let browser: Browser;
  let provider: TestProvider;
  let h: Harness;
  let base: string;
  let problems: string[];
  const pages: Page[] = [];

  beforeAll(async () => {
    if (skipBrowser) return;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => browser?.close());

  beforeEach(async () => {
    if (skipBrowser) return;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    provider = await startProvider({
      redirectUri: `${base}/dashboard/login/oidc/callback`,
      postLogoutRedirectUri: `${base}/dashboard`,
      accounts: ACCOUNTS,
    });
    h = await createHarness(engine, {
      publicBaseUrl: base,
      oidcIssuer: provider.issuer,
      oidcClientId: CLIENT_ID,
      oidcClientSecret: CLIENT_SECRET,
      oidcScopes: 'openid email profile groups',
      oidcRoleClaim: 'groups',
      oidcRoleMap: [
        { value: 'shelfmark-admins', role: 'admin' },
        { value: 'support', role: 'support' },
      ],
    });
    // The console's relative times and the session's idle timer follow the wall clock.
    h.clock.set(Date.now());
    await h.app.listen({ host: '127.0.0.1', port });
    problems = [];
  }, 60_000);
  afterEach(async () => {
    if (skipBrowser) return;
    for (const page of pages.splice(0)) await page.context().close();
    await h.close();
    await provider.stop();
    // Whatever a test did, no browser console reported an error it did not expect.
    expect(problems).toEqual([]);
  }, 30_000);

  async function open(who: string): Promise<Page> {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${who}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`${who}: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${who}: ${response.status()} ${response.url()}`);
    });
    page.on('dialog', (dialog) => void dialog.accept());
    pages.push(page);
    return page;
  }

  async function shoot(page: Page, name: string): Promise<void> {
    if (engine !== 'sqlite') return; // one set of pictures is enough
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `oidc-${name}-1280.png`), fullPage: true });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: join(SHOTS, `oidc-${name}-390.png`), fullPage: true });
    expect(await page.evaluate('document.documentElement.scrollWidth'), `${name} at 390 px`).toBeLessThanOrEqual(
      PHONE.width,
    );
    await page.setViewportSize(DESKTOP);
  }

  /** From the console's sign-in page through the provider's login page back to the console. */
  async function signInAs(page: Page, login: string, password: string): Promise<void> {
    await page.goto(`${base}/dashboard`);
    await page.getByRole('link', { name: `Sign in with ${new URL(provider.issuer).host}` }).click();
    // A browser still signed in at the provider comes straight back; otherwise the provider asks.
    await page.waitForURL((url) => url.pathname.startsWith('/interaction/') || url.origin === base);
    if (!page.url().startsWith(`${provider.issuer}/interaction/`)) return;
    await page.getByRole('heading', { name: 'Test provider sign-in' }).waitFor();
    await page.getByLabel('Login').fill(login);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in at the provider' }).click();
  }

  it.skipIf(skipBrowser)(
    'an admin and a support operator sign in; the admin disables the support operator, whose console ends at once',
    async () => {
      const { clientId } = (await h.asAdmin().post('/api/admin/v1/clients', { name: 'Boekhandel Noord' })).json();
      const admin = await open('alice');
      await admin.goto(`${base}/dashboard`);
      await admin.getByRole('heading', { name: 'Sign in' }).waitFor();
      // The provider is the way in; the admin token hides behind the break-glass fold.
      expect(await admin.getByLabel('Admin token').isVisible()).toBe(false);
      await shoot(admin, 'sign-in');

      await signInAs(admin, 'alice', 'alice-pw');
      await admin.locator('main h1', { hasText: 'Overview' }).waitFor();
      expect(admin.url()).toBe(`${base}/dashboard`);
      await expect.poll(() => admin.locator('#whoami').textContent()).toBe('alice@example.test · admin');
      // Ours: the provider's cookies share the host (cookies do not tell ports apart).
      const cookies = (await admin.context().cookies(base)).filter((c) => c.name.startsWith('shelfmark'));
      expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([['shelfmark_console', true, 'Strict']]);
      expect(await admin.evaluate('document.cookie')).toBe('');

      const support = await open('sam');
      await signInAs(support, 'sam', 'sam-pw');
      await support.locator('main h1', { hasText: 'Overview' }).waitFor();
      await expect.poll(() => support.locator('#whoami').textContent()).toBe('sam@example.test · support');
      expect(await support.locator('#role-note').textContent()).toContain('Signed in as support');
      expect(await support.locator('nav [data-section="operators"]').isHidden()).toBe(true);
      await support.locator('nav [data-section="clients"]').click();
      await support.getByText(clientId).waitFor();
      const reset = support.getByRole('button', { name: 'Reset secret' });
      expect(await reset.isDisabled()).toBe(true);
      expect(await reset.getAttribute('title')).toBe('Needs the admin role; you are signed in as support.');
      expect(await support.getByRole('button', { name: 'Create client' }).isDisabled()).toBe(true);
      expect(await support.getByRole('button', { name: 'Portal link' }).isEnabled()).toBe(true);
      await shoot(support, 'support-clients');

      await admin.locator('nav [data-section="operators"]').click();
      await admin.locator('main h1', { hasText: 'Operators' }).waitFor();
      const samRow = admin.locator('tr', { hasText: 'sam@example.test' });
      await samRow.waitFor();
      expect(await admin.locator('tr', { hasText: 'alice@example.test' }).getByText('you').isVisible()).toBe(true);
      await shoot(admin, 'operators');
      await samRow.getByRole('button', { name: 'Disable' }).click();
      await admin.getByText('Sam Support disabled; their sessions have ended.').waitFor();
      expect(await samRow.getByRole('button', { name: 'Enable' }).isVisible()).toBe(true);

      // Sam's open console: the next request finds no session, and the sign-in page says why.
      await support.locator('nav [data-section="overview"]').click();
      await support.getByText('Your session ended; sign in again.').waitFor();
      problems = problems.filter((line) => !/(status of |: )401/.test(line));
      // And the provider's sign-in no longer lets Sam in.
      await signInAs(support, 'sam', 'sam-pw');
      await support.getByRole('heading', { name: 'Sign-in refused' }).waitFor();
      expect(await support.getByRole('alert').textContent()).toBe(
        'This operator is disabled in Shelfmark; an admin can enable them again.',
      );
      problems = problems.filter((line) => !/(status of |: )403/.test(line));
      // No session of Sam's exists (the browser keeps the dead cookie of the ended one, which opens nothing).
      const sessions = await h.database.db.kysely
        .selectFrom('web_sessions')
        .select('operator_sub')
        .where('kind', '=', 'console')
        .execute();
      expect(sessions).toEqual([{ operator_sub: 'alice' }]);
    },
    120_000,
  );

  it.skipIf(skipBrowser)(
    'an identity without a role is refused with the reason, and signing out ends the provider session',
    async () => {
      const nora = await open('nora');
      await signInAs(nora, 'nora', 'nora-pw');
      await nora.getByRole('heading', { name: 'Sign-in refused' }).waitFor();
      expect(await nora.getByRole('alert').textContent()).toBe(
        'This identity has no Shelfmark role: the claim groups carries ["staff"], which OIDC_ROLE_MAP does not map, and its e-mail is not in OPERATOR_ADMINS.',
      );
      problems = problems.filter((line) => !/(status of |: )403/.test(line));
      await shoot(nora, 'refused');

      const admin = await open('alice');
      await signInAs(admin, 'alice', 'alice-pw');
      await admin.locator('main h1', { hasText: 'Overview' }).waitFor();
      await admin.locator('#sign-out').click();
      // RP-initiated logout: the provider asks, signs out, and sends the browser back to the console.
      await admin.getByRole('heading', { name: 'Sign out of the test provider?' }).waitFor();
      await admin.getByRole('button', { name: 'Yes, sign me out' }).click();
      await admin.waitForURL(`${base}/dashboard`);
      await admin.getByRole('link', { name: /^Sign in with / }).waitFor();
      const left = await admin.context().cookies(base);
      expect(left.filter((c) => c.name.startsWith('shelfmark')).map((c) => c.name)).toEqual([]);
      // The provider's session is over too: signing in again asks for the password.
      await admin.getByRole('link', { name: /^Sign in with / }).click();
      await admin.getByRole('heading', { name: 'Test provider sign-in' }).waitFor();
    },
    120_000,
  );
});
