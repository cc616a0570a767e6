/**
 * The failing/disabled banner in a real browser: the partner's portal shows a banner with the reason
 * on a disabled and on a failing subscription (none on a healthy one), and its one click re-enables
 * the subscription and queues again what failed; the operator console's subscription health shows the
 * same banner with the same click. Subscriptions and their failed deliveries are written directly,
 * as the delivery worker leaves them (the worker itself is covered by the delivery tests).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addFailedDelivery, addSubscription, type Receiver, startReceiver } from '../delivery/support.js';
import { type BrowserSession, launchChromium, skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, createClientWithToken, createHarness, type Harness } from '../support/harness.js';

const HOUR = 3_600_000;

describeEachEngine('failing and disabled subscriptions in the browser', (engine) => {
  let h: Harness;
  let base: string;
  let receiver: Receiver;
  let operator: BrowserSession;
  let partner: BrowserSession;
  let op: Page;
  let pt: Page;
  const problems: string[] = [];
  let disabled = '';
  let failing = '';
  let healthy = '';
  let failedDelivery = '';
  let shopId = '';

  const db = () => h.database.db.kysely;
  const subscription = (id: string) =>
    db().selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  /** One event delivered to `subscriptionId` whose attempts all failed; returns the delivery id. */
  const failedDeliveryOf = (subscriptionId: string, at: number): Promise<string> =>
    addFailedDelivery(h.database.db, subscriptionId, at, { attempt_count: 3, last_status_code: 410, updated_at: at });

  beforeAll(async () => {
    h = await createHarness(engine, { webhookAllowPrivate: true });
    h.clock.set(Date.now());
    base = await h.listen();
    receiver = await startReceiver();
    const shop = await createClientWithToken(h, `Boekhandel Zuid ${engine}`);
    shopId = shop.id;
    const now = h.clock.now();
    disabled = await addSubscription(h.database.db, shop.id, `${receiver.url}/gone`, now - 3 * HOUR, 'list.updated');
    failing = await addSubscription(h.database.db, shop.id, `${receiver.url}/broken`, now - 3 * HOUR, 'list.published');
    healthy = await addSubscription(h.database.db, shop.id, `${receiver.url}/fine`, now - 3 * HOUR, 'school.created');
    failedDelivery = await failedDeliveryOf(disabled, now - 2 * HOUR);
    await db()
      .updateTable('subscriptions')
      .set({ status: 'disabled', disabled_reason: 'the receiver answered 410 Gone', failing_since: now - 2 * HOUR })
      .where('id', '=', disabled)
      .execute();
    await db()
      .updateTable('subscriptions')
      .set({ failing_since: now - 2 * HOUR, consecutive_failures: 7 })
      .where('id', '=', failing)
      .execute();

    const link = await h.asAdmin().post(`/api/admin/v1/clients/${shop.id}/portal-link`);
    operator = await launchChromium();
    partner = await launchChromium();
    op = operator.context.pages()[0] ?? (await operator.context.newPage());
    pt = partner.context.pages()[0] ?? (await partner.context.newPage());
    for (const [who, page] of [
      ['operator', op],
      ['partner', pt],
    ] as const) {
      page.setDefaultTimeout(20_000);
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`${who} console: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`${who} page error: ${error.message}`));
    }
    await pt.goto(`${base}${link.json<{ path: string }>().path}`);
    await pt.locator('main h1', { hasText: 'Credentials' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await partner?.close();
    await operator?.close();
    await receiver?.close();
    await h?.close();
  }, 30_000);

  it.skipIf(skipBrowser)(
    'the portal shows a banner with the reason on a disabled and on a failing subscription',
    async () => {
      await pt.locator('nav').getByRole('button', { name: 'Subscriptions', exact: true }).click();
      await pt.locator('main h1', { hasText: 'Subscriptions' }).waitFor();
      const banners = pt.locator('.banner');
      await expect.poll(() => banners.count()).toBe(2);
      const gone = pt.locator(`.banner[data-subscription="${disabled}"]`);
      expect(await gone.getAttribute('role')).toBe('alert');
      expect(await gone.textContent()).toContain('Disabled: the receiver answered 410 Gone.');
      expect(await gone.textContent()).toContain(`${receiver.url}/gone`);
      const broken = pt.locator(`.banner[data-subscription="${failing}"]`);
      // The count of failed attempts, as the console's banner gives it.
      expect(await broken.textContent()).toMatch(
        /Failing: every attempt has failed since 2 hours ago \(7 failed attempts in a row\)\./,
      );
      expect(await pt.locator(`.banner[data-subscription="${healthy}"]`).count()).toBe(0);
    },
  );

  it.skipIf(skipBrowser)('one click re-enables it and queues again what failed', async () => {
    const gone = pt.locator(`.banner[data-subscription="${disabled}"]`);
    await gone.getByRole('button', { name: 'Re-enable and recover what failed' }).click();
    await pt.getByText('Re-enable and recover what failed: Re-enabled; 1 failed delivery queued again.').waitFor();
    await expect.poll(() => pt.locator('.banner').count()).toBe(1);
    expect(await subscription(disabled)).toMatchObject({
      status: 'active',
      disabled_reason: null,
      failing_since: null,
    });
    const delivery = await db()
      .selectFrom('deliveries')
      .select('status')
      .where('id', '=', failedDelivery)
      .executeTakeFirstOrThrow();
    expect(delivery.status).toBe('pending');
  });

  it.skipIf(skipBrowser)("the console's subscription health shows the same banner and click", async () => {
    await op.goto(`${base}/dashboard`);
    await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await op.getByRole('button', { name: 'Sign in' }).click();
    await op.locator('main h1', { hasText: 'Overview' }).waitFor();
    await op.locator('nav').getByRole('button', { name: 'Subscriptions', exact: true }).click();
    await op.locator('main h1', { hasText: 'Webhook subscriptions' }).waitFor();
    const broken = op.locator(`.banner[data-subscription="${failing}"]`);
    expect(await broken.textContent()).toMatch(
      /Failing: every attempt has failed since 2 hours ago \(7 failed attempts in a row\)\./,
    );
    expect(await op.locator('.banner').count()).toBe(1);
    // Active, so no "Re-enable": the click sends again what failed.
    await broken.getByRole('button', { name: 'Send again what failed' }).click();
    await op.getByText(/: 0 failed deliveries queued again\./).waitFor();
    await expect.poll(() => op.locator('.banner').count()).toBe(0);
    expect((await subscription(failing)).failing_since).toBeNull();
    expect(problems).toEqual([]);
  });

  it.skipIf(skipBrowser)(
    'once its client is revoked, every row reads ended: client revoked, with no banner and nothing to replay',
    async () => {
      expect((await h.asAdmin().delete(`/api/admin/v1/clients/${shopId}`)).statusCode).toBe(204);
      for (const viewport of [
        { width: 1280, height: 900 },
        { width: 390, height: 844 },
      ]) {
        await op.setViewportSize(viewport);
        await op.reload();
        await op.locator('main h1', { hasText: 'Webhook subscriptions' }).waitFor();
        const rows = op.locator('main tbody tr', { hasText: receiver.url });
        await expect.poll(() => rows.count()).toBe(3);
        for (const row of await rows.all()) {
          expect(await row.textContent()).toContain('revoked · ended: client revoked');
          expect(await row.getByRole('button', { name: 'Replay', exact: true }).isDisabled()).toBe(true);
          expect(await row.getByRole('button', { name: 'Re-enable' }).count()).toBe(0);
        }
        expect(await op.locator('.banner').count()).toBe(0);
        await op.screenshot({ path: `/tmp/shelfmark-revoked-${engine}-${viewport.width}.png`, fullPage: true });
      }
      await op.setViewportSize({ width: 1280, height: 900 });
      expect(problems).toEqual([]);
    },
  );
});
