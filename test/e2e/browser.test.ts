/**
 * The operator console and the partner portal in a real browser (Debian's Chromium via
 * playwright-core) against a real listening instance with a running delivery worker and loopback
 * webhook receivers. One story, in order: the operator signs in and creates a client, hands its
 * portal link to the partner (a second browser with its own profile), the partner resets its secret
 * and subscribes, the operator publishes a list, the partner follows the deliveries and retries a
 * failed one. Along the way: hostile names render as text, state changes without the CSRF token are
 * refused, used and expired links are refused, another client's ids answer 404, no console errors.
 * Screenshots of every main page at 1280 and 390 px go to test-artifacts/screenshots.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConsoleMessage, Dialog, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { addStats, uncountFinished } from '../../src/delivery/stats.js';
import { addSubscription, emit, startReceiver, type Receiver } from '../delivery/support.js';
import { launchChromium, skipBrowser, type BrowserSession } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, basic, createHarness, type Harness } from '../support/harness.js';

const HOSTILE = '<img src=x onerror=alert(1)>';
const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

describeEachEngine('browser end to end', (engine) => {
  let h: Harness;
  let base: string;
  let stopWorker: () => Promise<void>;
  let ticker: NodeJS.Timeout;
  /** Added to the wall clock: lets the test jump past the link lifetime. */
  let offset = 0;
  let okReceiver: Receiver;
  let flaky: Receiver;
  let flakyUp = false;
  let operator: BrowserSession;
  let partner: BrowserSession;
  let op: Page;
  let pt: Page;
  const problems: string[] = [];
  const dialogs: string[] = [];

  function watch(page: Page, who: string): void {
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') problems.push(`${who} console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`${who} page error: ${error.message}`));
    page.on('dialog', (dialog: Dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void (dialog.type() === 'prompt' ? dialog.accept(dialog.defaultValue()) : dialog.accept());
    });
    // Generous: under a full parallel test run on 2 cores a step can take several seconds.
    page.setDefaultTimeout(20_000);
  }

  /** Runs a step that is expected to make the browser log failed requests (401/403/404), then forgets them. */
  async function expectingRefusals<T>(step: () => Promise<T>): Promise<T> {
    const result = await step();
    problems.length = 0;
    return result;
  }

  /** Desktop and phone pictures; `rerender` draws the page again at the new width (the chart sizes itself when drawn). */
  async function shoot(page: Page, name: string, rerender?: () => Promise<void>): Promise<void> {
    if (engine !== 'sqlite') return; // one set of pictures is enough
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}-1280.png`), fullPage: true });
    await page.setViewportSize(PHONE);
    await rerender?.();
    await page.screenshot({ path: join(SHOTS, `${name}-390.png`), fullPage: true });
    // Nothing may stick out sideways at phone width.
    expect(
      await page.evaluate('document.documentElement.scrollWidth'),
      `${name} is wider than the phone`,
    ).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(DESKTOP);
    await rerender?.();
  }

  /**
   * Opens a section and waits for the fresh drawing: a page draws a section off-screen and swaps it in
   * once its data is loaded, so the section on screen before the click is marked stale and not waited for.
   */
  async function section(page: Page, name: string, heading: string): Promise<void> {
    await page.evaluate("document.querySelector('main > section')?.setAttribute('data-stale', '')");
    await page.locator('nav').getByRole('button', { name, exact: true }).click();
    await page.locator('main > section:not([data-stale]) h1', { hasText: heading }).waitFor();
  }

  beforeAll(async () => {
    h = await createHarness(engine, { webhookAllowPrivate: true, webhookRetryScheduleSeconds: [] });
    // The app's clock follows the wall clock (plus `offset`), so the worker's schedule and the page's relative times agree.
    h.clock.set(Date.now());
    ticker = setInterval(() => h.clock.set(Date.now() + offset), 50);
    base = await h.listen();
    stopWorker = h.services.startWorker({ pollIntervalMs: 100 }).stop;
    okReceiver = await startReceiver(() => ({ status: 200, body: 'thanks' }));
    flaky = await startReceiver(() =>
      flakyUp ? { status: 200, body: 'back up' } : { status: 500, body: 'receiver broken' },
    );
    operator = await launchChromium(DESKTOP);
    partner = await launchChromium(DESKTOP);
    op = operator.context.pages()[0] ?? (await operator.context.newPage());
    pt = partner.context.pages()[0] ?? (await partner.context.newPage());
    watch(op, 'operator');
    watch(pt, 'partner');
  }, 60_000);

  afterAll(async () => {
    await partner?.close();
    await operator?.close();
    await stopWorker?.();
    clearInterval(ticker);
    await okReceiver?.close();
    await flaky?.close();
    await h?.close();
  }, 30_000);

  // A failed step leaves a picture of both pages and what their notice bars said, for diagnosis.
  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail' || skipBrowser) return;
    const dir = join(process.cwd(), 'test-artifacts', 'failures');
    await mkdir(dir, { recursive: true });
    const slug = `${engine}-${context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`;
    for (const [who, page] of [
      ['operator', op],
      ['partner', pt],
    ] as const) {
      await page.screenshot({ path: join(dir, `${slug}-${who}.png`), fullPage: true }).catch(() => undefined);
      console.warn(
        `[browser ${engine}] ${who} notice after failure: ${await page
          .locator('#notice')
          .textContent()
          .catch(() => '?')}`,
      );
    }
  });

  let clientName = '';
  let portalLink = '';
  let firstSecret = '';
  let clientId = '';

  it.skipIf(skipBrowser)(
    'the operator signs in with the admin token (refused when wrong) and lands on the overview',
    async () => {
      await op.goto(`${base}/dashboard`);
      await op.getByRole('heading', { name: 'Sign in' }).waitFor();
      await expectingRefusals(async () => {
        await op.getByLabel('Admin token').fill('wrong-token-0123456789');
        await op.getByRole('button', { name: 'Sign in' }).click();
        await op.getByText('The admin token was refused.').waitFor();
      });
      await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await op.getByRole('button', { name: 'Sign in' }).click();
      await op.locator('main h1', { hasText: 'Overview' }).waitFor();
      await op.locator('figure.chart svg').waitFor();
      // The token became an HttpOnly cookie: nothing in storage, nothing readable by the page.
      expect(await op.evaluate('[localStorage.length, sessionStorage.length, document.cookie]')).toEqual([0, 0, '']);
      const cookies = await operator.context.cookies();
      expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([['shelfmark_console', true, 'Strict']]);
      // Keyboard: from the top of the page, Tab reaches the navigation and Enter opens a section.
      await op.evaluate('document.activeElement && document.activeElement.blur()');
      const reached: string[] = [];
      for (let i = 0; i < 10 && !reached.includes('Clients'); i++) {
        await op.keyboard.press('Tab');
        reached.push(String(await op.evaluate('document.activeElement.textContent')));
      }
      expect(reached).toContain('Clients');
      await op.keyboard.press('Enter');
      await op.locator('main h1', { hasText: 'API clients' }).waitFor();
    },
  );

  it.skipIf(skipBrowser)('creates a client (secrets shown once) and a portal link for it', async () => {
    clientName = `Boekhandel Noord ${engine}`;
    await section(op, 'Clients', 'API clients');
    await op.getByText('No clients yet').waitFor();
    await op.getByLabel('New client name').fill(clientName);
    await op.getByRole('button', { name: 'Create client' }).click();
    await op.getByText('Create client: done.').waitFor();
    const secretBox = op.locator('.secret', { hasText: 'Client secret of' });
    await secretBox.getByText('you will not see this again').waitFor();
    firstSecret = (await secretBox.locator('.secret-value').textContent()) ?? '';
    expect(firstSecret).toMatch(/^sms_/);
    clientId =
      (await op.locator('tr', { hasText: clientName }).locator('td[data-label="Client ID"]').textContent()) ?? '';
    expect(clientId).toMatch(/^smc_/);

    await op.locator('tr', { hasText: clientName }).getByRole('button', { name: 'Portal link' }).click();
    const linkBox = op.locator('.secret', { hasText: 'Portal sign-in link' });
    portalLink = (await linkBox.locator('.secret-value').textContent()) ?? '';
    expect(portalLink).toMatch(new RegExp(`^${base}/portal/sign-in#[A-Za-z0-9_-]{43}$`));
    await shoot(op, 'console-clients');
  });

  it.skipIf(skipBrowser)(
    'the partner opens the link in its own browser; a used link is refused afterwards',
    async () => {
      await pt.goto(portalLink);
      await pt.locator('main h1', { hasText: 'Credentials' }).waitFor();
      expect(await pt.locator('#client-id').textContent()).toBe(clientId);
      expect(pt.url()).toBe(`${base}/portal`);
      expect((await partner.context.cookies()).map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([
        ['shelfmark_portal', true, 'Strict'],
      ]);

      const third = await launchChromium(DESKTOP);
      const page = third.context.pages()[0] ?? (await third.context.newPage());
      await expectingRefusals(async () => {
        await page.goto(portalLink);
        await page.getByText('This sign-in link is invalid, already used or expired').waitFor();
      });
      await third.close();
    },
  );

  it.skipIf(skipBrowser)(
    'the partner resets its secret; a token minted with the old one is refused at once',
    async () => {
      const minted = await fetch(`${base}/api/auth/token`, {
        headers: { authorization: basic(clientId, firstSecret) },
      });
      expect(minted.status).toBe(200);
      const oldToken = ((await minted.json()) as { access_token: string }).access_token;
      expect(
        (await fetch(`${base}/api/lml/v1/subscriptions`, { headers: { authorization: `Bearer ${oldToken}` } })).status,
      ).toBe(200);

      await pt.getByRole('button', { name: 'Reset client secret' }).click();
      await pt.getByText('Reset client secret: done.').waitFor();
      const box = pt.locator('.secret', { hasText: 'New client secret' });
      await box.getByText('you will not see this again').waitFor();
      await box.getByRole('button', { name: 'Copy' }).waitFor();
      const newSecret = (await box.locator('.secret-value').textContent()) ?? '';
      expect(newSecret).toMatch(/^sms_/);
      expect(newSecret).not.toBe(firstSecret);
      expect(dialogs.at(-1)).toMatch(/^confirm: Reset your client secret\?/);

      expect(
        (await fetch(`${base}/api/lml/v1/subscriptions`, { headers: { authorization: `Bearer ${oldToken}` } })).status,
      ).toBe(401);
      expect(
        (await fetch(`${base}/api/auth/token`, { headers: { authorization: basic(clientId, firstSecret) } })).status,
      ).toBe(401);
      expect(
        (await fetch(`${base}/api/auth/token`, { headers: { authorization: basic(clientId, newSecret) } })).status,
      ).toBe(200);
      await shoot(pt, 'portal-credentials');
    },
  );

  it.skipIf(skipBrowser)(
    'issue 14.9: after a secret reset the "tokens minted before" line is current and each new secret shows under its own button',
    async () => {
      // The reset of the previous step happened on this page: the line must show the new cut-off.
      const session = (await pt.evaluate(async () => (await fetch('/portal/api/session')).json())) as {
        client: { tokensValidAfter: string };
      };
      expect(await pt.locator('#tokens-valid-after time').getAttribute('datetime')).toBe(
        session.client.tokensValidAfter,
      );
      // The new client secret sits right after the button that made it, not under the webhook section.
      expect(await pt.evaluate("document.getElementById('reset-secret').nextElementSibling.id")).toBe(
        'client-secret-output',
      );
      await pt.locator('#client-secret-output .secret', { hasText: 'New client secret' }).waitFor();
      await pt.getByRole('button', { name: 'Rotate webhook secret' }).click();
      await pt.locator('#webhook-secret-output .secret', { hasText: 'New webhook secret' }).waitFor();
      expect(await pt.evaluate("document.getElementById('rotate-webhook-secret').nextElementSibling.id")).toBe(
        'webhook-secret-output',
      );
      await shoot(pt, 'portal-credentials-secrets');
    },
  );

  it.skipIf(skipBrowser)('the partner subscribes loopback receivers; bad input is reported inline', async () => {
    await section(pt, 'Subscriptions', 'Subscriptions');
    await pt.getByText('No subscriptions yet').waitFor();
    await expectingRefusals(async () => {
      await pt.getByLabel('Receiver URL').fill('ftp://files.example/hook');
      await pt.getByRole('button', { name: 'Subscribe' }).click();
      await pt.locator('.error-text', { hasText: /http/ }).waitFor();
    });
    for (const url of [okReceiver.url, flaky.url]) {
      await pt.getByLabel('Receiver URL').fill(url);
      await pt.getByRole('button', { name: 'Subscribe' }).click();
      await pt.locator('td', { hasText: url }).waitFor();
    }
    expect(await pt.locator('tbody tr').count()).toBe(2);
    await shoot(pt, 'portal-subscriptions');
  });

  it.skipIf(skipBrowser)('issue 14.8: an ftp:// receiver is refused with one clear sentence', async () => {
    await section(pt, 'Subscriptions', 'Subscriptions');
    await expectingRefusals(async () => {
      await pt.getByLabel('Receiver URL').fill('ftp://files.example/hook');
      await pt.getByRole('button', { name: 'Subscribe' }).click();
      await pt.locator('.error-text', { hasText: /http/ }).waitFor();
    });
    expect(await pt.locator('.error-text').textContent()).toBe('notificationUrl must use http or https, not ftp');
    await pt.getByLabel('Receiver URL').fill('');
  });

  it.skipIf(skipBrowser)(
    'a school with a hostile name renders as text; the operator publishes its list and sees the events',
    async () => {
      const school = await h.app.inject({
        method: 'POST',
        url: '/api/admin/v1/schools',
        headers: h.admin,
        payload: { name: HOSTILE, type: 'HBO', location: 'Amsterdam' },
      });
      expect(school.statusCode).toBe(201);
      await section(op, 'Schools & lists', 'Schools & lists');
      await op.getByLabel('List name').fill('ICT jaar 1');
      await op.getByLabel('Tags (comma-separated levels)').fill('Amsterdam, 2026-2027');
      await op.getByRole('button', { name: 'Create list' }).click();
      await op.getByText('Events emitted: list.created, list.status.').waitFor();
      await op.locator('.tree li', { hasText: 'ICT jaar 1' }).getByRole('button', { name: 'Publish' }).click();
      await op
        .getByText('List ICT jaar 1 is now published: done. Events emitted: list.status, list.published.')
        .waitFor();
      await op.locator('.tree .badge.published').waitFor();
      // School → tags → list, as the tree of the specification.
      expect(await op.locator('.tree li li > span.muted').allTextContents()).toEqual(['Amsterdam', '2026-2027']);

      expect(await op.locator('.tree strong').allTextContents()).toContain(HOSTILE);
      expect(await op.locator(`option:text-is("${HOSTILE}")`).count()).toBe(1);
      expect(await op.locator('main img').count()).toBe(0);
      await shoot(op, 'console-lists');
    },
  );

  it.skipIf(skipBrowser)(
    'the partner sees the delivery and its attempt; retries the failed one from the portal',
    async () => {
      await okReceiver.waitFor(1, 10_000);
      await flaky.waitFor(1, 10_000);
      await section(pt, 'Deliveries', 'Deliveries');
      // The failed delivery is final at once (no retry schedule in this test): wait for both outcomes.
      await expect
        .poll(
          async () => {
            await section(pt, 'Deliveries', 'Deliveries');
            return (await pt.locator('td[data-label="Outcome"]').allTextContents()).sort();
          },
          { timeout: 20_000 },
        )
        .toEqual(['delivered', 'failed (http 500)']);

      const okRow = pt.locator('tr', { hasText: okReceiver.url });
      await okRow.getByRole('button', { name: 'Attempts' }).click();
      const detail = pt.locator('#delivery-detail');
      await detail.getByText('HTTP 200').waitFor();
      expect(await detail.locator('pre.headers').textContent()).toContain('webhook-signature: •••••••• (masked)');
      expect(await detail.locator('code.excerpt').textContent()).toBe('thanks');
      expect(await detail.locator('h2').textContent()).toMatch(/^List published: list [0-9a-f]{8}…$/);

      flakyUp = true;
      await pt.locator('tr', { hasText: flaky.url }).getByRole('button', { name: 'Retry' }).click();
      await pt.getByText('Retry delivery: done.').waitFor();
      await flaky.waitFor(2, 10_000);
      await expect
        .poll(
          async () => {
            await section(pt, 'Deliveries', 'Deliveries');
            return pt.locator('tr', { hasText: flaky.url }).locator('td[data-label="Outcome"]').textContent();
          },
          { timeout: 20_000 },
        )
        .toBe('delivered');
      await pt.locator('tr', { hasText: flaky.url }).getByRole('button', { name: 'Attempts' }).click();
      await expect.poll(() => detail.locator('tbody tr').count()).toBe(2);
      await shoot(pt, 'portal-deliveries');
    },
  );

  /** The flaky receiver's delivery, put back into the state a test needs (as the worker would leave it). */
  async function setFlakyDelivery(
    change: { status: 'pending'; nextAttemptAt: number } | { status: 'failed' },
  ): Promise<string> {
    const flakyDelivery = () =>
      h.database.db.kysely
        .selectFrom('deliveries')
        .innerJoin('subscriptions', 'subscriptions.id', 'deliveries.subscription_id')
        .select([
          'deliveries.id',
          'deliveries.lease_owner',
          'deliveries.status',
          'deliveries.next_attempt_at',
          'deliveries.completed_at',
        ])
        .where('subscriptions.notification_url', '=', flaky.url)
        // The newest first, as the page lists them: the row changed is the row the test then reads.
        .orderBy('deliveries.created_at', 'desc')
        .orderBy('deliveries.id', 'desc')
        .executeTakeFirstOrThrow();
    // A delivery still due or in flight (a retry the previous step asked for) would be sent and its
    // outcome recorded over the state set here: wait until it has settled.
    await expect
      .poll(
        async () => {
          const delivery = await flakyDelivery();
          const due = delivery.status === 'pending' && delivery.next_attempt_at <= h.clock.now() + 1000;
          return delivery.lease_owner === null && !due;
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    const row = await flakyDelivery();
    await h.database.db.kysely
      .updateTable('deliveries')
      .set(
        change.status === 'pending'
          ? { status: 'pending', next_attempt_at: change.nextAttemptAt, completed_at: null }
          : { status: 'failed', completed_at: h.clock.now() },
      )
      .where('id', '=', row.id)
      .execute();
    // The hourly counters follow, as the worker's completions keep them.
    await uncountFinished(h.database.db.kysely, [row]);
    if (change.status === 'failed') await addStats(h.database.db.kysely, h.clock.now(), { failed: 1 });
    return row.id;
  }

  it.skipIf(skipBrowser)(
    'issue 14.1: a delivery waiting for its retry reads "retrying · next attempt in …", the exact time on hover',
    async () => {
      const next = h.clock.now() + 5 * 60_000;
      await setFlakyDelivery({ status: 'pending', nextAttemptAt: next });
      await section(pt, 'Deliveries', 'Deliveries');
      const cell = pt.locator('tr', { hasText: flaky.url }).locator('td[data-label="Outcome"]');
      expect(await cell.textContent()).toMatch(/^retrying · next attempt in [45] min$/);
      const iso = new Date(next).toISOString();
      expect(await cell.locator('time').getAttribute('datetime')).toBe(iso);
      expect(await cell.locator('time').getAttribute('title')).toContain(`(${iso})`);
      await shoot(pt, 'portal-deliveries-retrying');
    },
  );

  it.skipIf(skipBrowser)(
    'issue 14.2: Retry now sends a delivery waiting for its retry at once; after Retry (now) its attempts open',
    async () => {
      const row = () => pt.locator('tr', { hasText: flaky.url });
      const detail = pt.locator('#delivery-detail');
      // Waiting for its next attempt: "Retry now" moves that attempt to now (same webhook-id).
      const id = await setFlakyDelivery({ status: 'pending', nextAttemptAt: h.clock.now() + 5 * 60_000 });
      await section(pt, 'Deliveries', 'Deliveries');
      expect(await detail.textContent()).toBe('');
      await row().getByRole('button', { name: 'Retry now' }).click();
      await pt.getByText('Retry delivery: done.').waitFor();
      await flaky.waitFor(3, 10_000);
      // The attempts panel opens by itself, in the page as shown (not in a replaced element).
      await detail.locator('.panel .id', { hasText: id }).waitFor();
      expect(await detail.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
      await expect
        .poll(async () => {
          await section(pt, 'Deliveries', 'Deliveries');
          return row().locator('td[data-label="Outcome"]').textContent();
        })
        .toBe('delivered');

      // A finished (failed) one: Retry, and again the attempts open.
      await setFlakyDelivery({ status: 'failed' });
      await section(pt, 'Deliveries', 'Deliveries');
      await row().getByRole('button', { name: 'Retry', exact: true }).click();
      await pt.getByText('Retry delivery: done.').waitFor();
      await detail.locator('.panel .id', { hasText: id }).waitFor();
      await flaky.waitFor(4, 10_000);
    },
  );

  it.skipIf(skipBrowser)(
    'the hostile school name stays text on every console page; every page renders without errors',
    async () => {
      for (const [name, heading] of [
        ['Overview', 'Overview'],
        ['Clients', 'API clients'],
        ['Schools & lists', 'Schools & lists'],
        ['Offers', 'Offers'],
        ['Subscriptions', 'Webhook subscriptions'],
        ['Deliveries', 'Delivery log'],
      ] as const) {
        await section(op, name, heading);
        expect(await op.locator('main img').count(), name).toBe(0);
        expect(
          await op
            .locator('main td, main li')
            .filter({ hasText: /^\{|\[/ })
            .count(),
          `${name} shows raw JSON`,
        ).toBe(0);
        await shoot(op, `console-${name.toLowerCase().replace(/[^a-z]+/g, '-')}`, () => section(op, name, heading));
      }
      await section(op, 'Schools & lists', 'Schools & lists');
      expect(await op.getByText(HOSTILE, { exact: true }).count()).toBeGreaterThan(0);
      expect(dialogs.filter((d) => d.startsWith('alert'))).toEqual([]);
      const overview = await h.app.inject({ method: 'GET', url: '/api/admin/v1/overview', headers: h.admin });
      expect(overview.json()).toMatchObject({ clients: 1, subscriptions: 2, publishedLists: 1, failedLast24h: 0 });
    },
  );

  it.skipIf(skipBrowser)(
    'issue 14.13: the console delivery log names the list and its school an event was about',
    async () => {
      await section(op, 'Deliveries', 'Delivery log');
      const rows = op.locator('main tr', { hasText: 'List published' });
      await rows.first().waitFor();
      // The school's hostile name is shown as text beside the list's name, never as markup.
      expect(await rows.first().locator('td').nth(4).textContent()).toBe(`ICT jaar 1 (${HOSTILE})`);
      expect(await op.locator('main img').count()).toBe(0);
    },
  );

  it.skipIf(skipBrowser)(
    'issue 14.4: archived lists show greyed behind a toggle, with their way back (archived → created)',
    async () => {
      const schools = await h.app.inject({ method: 'GET', url: '/api/admin/v1/schools', headers: h.admin });
      const school = schools.json<{ data: { identifier: string }[] }>().data[0]!.identifier;
      const created = await h.app.inject({
        method: 'POST',
        url: '/api/admin/v1/lists',
        headers: h.admin,
        payload: { school, name: 'Old list 2025', tags: [] },
      });
      expect(created.statusCode).toBe(201);
      const list = created.json<{ identifier: string }>().identifier;
      const archived = await h.app.inject({
        method: 'POST',
        url: `/api/admin/v1/lists/${list}/status`,
        headers: h.admin,
        payload: { status: 'archived' },
      });
      expect(archived.statusCode).toBe(200);

      await section(op, 'Schools & lists', 'Schools & lists');
      await op.locator('.tree').waitFor();
      expect(await op.locator('.tree', { hasText: 'Old list 2025' }).count()).toBe(0);
      await op.getByLabel('Show archived lists').check();
      const row = op.locator('.tree .row.archived', { hasText: 'Old list 2025' });
      await row.waitFor();
      expect(await row.locator('.badge').textContent()).toBe('archived');
      expect(await row.getByRole('button').allTextContents()).toEqual(['Rename', 'Restore as draft']);
      await shoot(op, 'console-lists-archived');
      await row.getByRole('button', { name: 'Restore as draft' }).click();
      await op.getByText('List Old list 2025 is now created: done. Events emitted: list.status.').waitFor();
      const restored = op.locator('.tree .row', { hasText: 'Old list 2025' });
      expect(await restored.locator('.badge').textContent()).toBe('created');
      expect(await restored.getAttribute('class')).toBe('row');
      expect(await op.getByLabel('Show archived lists').isChecked()).toBe(true);
    },
  );

  it.skipIf(skipBrowser)('state changes without the CSRF token are refused, from either page', async () => {
    const statuses = await expectingRefusals(async () => [
      await op.evaluate(
        async () =>
          (
            await fetch('/api/admin/v1/clients', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{"name":"csrf"}',
            })
          ).status,
      ),
      await pt.evaluate(async () => (await fetch('/portal/api/secret', { method: 'POST' })).status),
    ]);
    expect(statuses).toEqual([403, 403]);
    const names = (await h.app.inject({ method: 'GET', url: '/api/admin/v1/clients', headers: h.admin }))
      .json<{ data: { name: string }[] }>()
      .data.map((c) => c.name);
    expect(names).not.toContain('csrf');
  });

  it.skipIf(skipBrowser)("the partner cannot reach another client's subscription", async () => {
    const other = await h.app.inject({
      method: 'POST',
      url: '/api/admin/v1/clients',
      headers: h.admin,
      payload: { name: 'Other shop' },
    });
    const theirs = await addSubscription(
      h.database.db,
      other.json<{ id: string }>().id,
      'http://127.0.0.1:9/theirs',
      h.clock.now(),
    );
    await emit(h.database.db, h.clock.now());
    const statuses = await expectingRefusals(() =>
      pt.evaluate(async (id) => {
        const { csrfToken } = (await (await fetch('/portal/api/session')).json()) as { csrfToken: string };
        const headers = { 'x-csrf-token': csrfToken };
        return [
          (await fetch(`/portal/api/subscriptions/${id}/ping`, { method: 'POST', headers })).status,
          (await fetch(`/portal/api/subscriptions/${id}`, { method: 'DELETE', headers })).status,
          (await fetch(`/portal/api/subscriptions/${id}/enable`, { method: 'POST', headers })).status,
        ];
      }, theirs),
    );
    expect(statuses).toEqual([404, 404, 404]);
    const listed = await pt.evaluate(async () =>
      (
        (await (await fetch('/portal/api/deliveries?limit=100')).json()) as { data: { subscriptionId: string }[] }
      ).data.map((d) => d.subscriptionId),
    );
    expect(listed).not.toContain(theirs);
    expect(
      await h.database.db.kysely.selectFrom('subscriptions').select('id').where('id', '=', theirs).execute(),
    ).toHaveLength(1);
  });

  it.skipIf(skipBrowser)('an expired portal link is refused', async () => {
    await section(op, 'Clients', 'API clients');
    await op.locator('tr', { hasText: clientName }).getByRole('button', { name: 'Portal link' }).click();
    const link =
      (await op.locator('.secret', { hasText: 'Portal sign-in link' }).locator('.secret-value').textContent()) ?? '';
    offset += 15 * 60 * 1000 + 1000;
    await new Promise((resolve) => setTimeout(resolve, 120));
    const late = await launchChromium(DESKTOP);
    const page = late.context.pages()[0] ?? (await late.context.newPage());
    await expectingRefusals(async () => {
      await page.goto(link);
      await page.getByText('This sign-in link is invalid, already used or expired').waitFor();
    });
    await late.close();
  });

  it.skipIf(skipBrowser)('left no error in either browser console', () => {
    expect(problems).toEqual([]);
  });
});
