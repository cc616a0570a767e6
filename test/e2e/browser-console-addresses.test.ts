/**
 * In a real browser: every section of the console and the portal, and the delivery or list
 * opened in it, has its own address. Opening one records it in the history (Back and Forward move
 * between them), a reload keeps it, and an address typed or bookmarked opens there — after sign-in
 * when the session had ended. The server answers those paths with the page (test/ops/app-paths.test.ts).
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, type TestClient } from '../support/harness.js';
import { section, useBrowserWorldEachTest, type World } from './support.js';

describeEachEngine('addresses of the sections', (engine) => {
  let w: World;
  useBrowserWorldEachTest(engine, (world) => {
    w = world;
  });

  /** The heading of the section on screen, once the page has drawn the place its address names. */
  const heading = async (page: Page, text: string): Promise<string> => {
    await page.locator('main > section h1', { hasText: text }).waitFor();
    return (await page.locator('main > section h1').textContent()) ?? '';
  };
  const path = (page: Page): string => {
    const url = new URL(page.url());
    return url.pathname + url.search;
  };

  /** A client whose two receivers got the list's publication (one of them failed): the list's identifier. */
  async function deliveredList(): Promise<{ list: string; client: TestClient }> {
    const client = await w.shop();
    await w.subscribeReceivers(client);
    const list = await w.publishedList('Erasmus Lyceum', 'vwo 4');
    await w.ok.waitFor(1, 10_000);
    await w.flaky.waitFor(1, 10_000);
    return { list, client };
  }

  it.skipIf(skipBrowser)(
    'console: each section has its address; Back and Forward move between them; reload keeps the section',
    async () => {
      await deliveredList();
      const op = await w.operator();
      expect(path(op)).toBe('/dashboard');
      await section(op, 'Deliveries', 'Delivery log');
      expect(path(op)).toBe('/dashboard/deliveries');
      await section(op, 'Subscriptions', 'Webhook subscriptions');
      expect(path(op)).toBe('/dashboard/subscriptions');
      await section(op, 'Schools & lists', 'Schools & lists');
      expect(path(op)).toBe('/dashboard/lists');

      await op.goBack();
      expect(await heading(op, 'Webhook subscriptions')).toBe('Webhook subscriptions');
      expect(path(op)).toBe('/dashboard/subscriptions');
      await op.goBack();
      expect(await heading(op, 'Delivery log')).toBe('Delivery log');
      await op.goForward();
      expect(await heading(op, 'Webhook subscriptions')).toBe('Webhook subscriptions');

      await op.reload();
      expect(await heading(op, 'Webhook subscriptions')).toBe('Webhook subscriptions');
      expect(path(op)).toBe('/dashboard/subscriptions');
      // The navigation marks the section the address names.
      expect(await op.locator('nav [aria-current="page"]').textContent()).toBe('Subscriptions');
    },
  );

  it.skipIf(skipBrowser)(
    "console: a delivery's and a list's page, and the log's filters, have addresses that survive a reload",
    async () => {
      const { list } = await deliveredList();
      const op = await w.operator();
      await section(op, 'Deliveries', 'Delivery log');
      await op.getByLabel('Status').selectOption('failed');
      await op.getByRole('button', { name: 'Filter' }).click();
      await op.waitForURL(`${w.base}/dashboard/deliveries?status=failed`);
      await expect.poll(() => op.locator('main tbody tr').count()).toBe(1);
      await op.reload();
      await heading(op, 'Delivery log');
      expect(await op.getByLabel('Status').inputValue()).toBe('failed');
      await expect.poll(() => op.locator('main tbody tr').count()).toBe(1);

      const id = await w.h.database.db.kysely
        .selectFrom('deliveries')
        .select('id')
        .where('status', '=', 'failed')
        .executeTakeFirstOrThrow();
      await op.locator('main tr').getByRole('link', { name: 'Attempts' }).click();
      await op.waitForURL(`${w.base}/dashboard/deliveries/${id.id}`);
      expect(await heading(op, 'List published')).toBe('List published: vwo 4 (Erasmus Lyceum)');
      await op.reload();
      expect(await heading(op, 'List published')).toBe('List published: vwo 4 (Erasmus Lyceum)');
      expect(await op.locator('main .id').first().textContent()).toBe(id.id);
      await op.goBack();
      await heading(op, 'Delivery log');
      expect(path(op)).toBe('/dashboard/deliveries?status=failed');

      // Typed into the address bar: the list's page opens directly.
      await op.goto(`${w.base}/dashboard/lists/${list}`);
      expect(await heading(op, 'vwo 4')).toBe('vwo 4');
      expect(await op.locator('main .breadcrumb').textContent()).toBe('Erasmus Lyceum › Amsterdam › 2026-2027 › vwo 4');
      await op.getByRole('link', { name: '← Schools & lists' }).click();
      await heading(op, 'Schools & lists');
      expect(path(op)).toBe('/dashboard/lists');
    },
  );

  it.skipIf(skipBrowser)('console: the offers search and the archived-lists toggle are in the address', async () => {
    const admin = w.h.asAdmin();
    for (const ean of ['9789001891442', '9780194837125'])
      expect((await admin.post('/api/admin/v1/offers', { ean, price: 10, condition: 'good' })).statusCode).toBe(201);
    const op = await w.operator();
    await section(op, 'Offers', 'Offers');
    await op.getByLabel('Search by EAN/ISBN').fill('978-0-19-483712-5');
    await op.getByRole('button', { name: 'Search' }).click();
    await op.waitForURL(`${w.base}/dashboard/offers?ean=9780194837125`);
    await op.locator('main h2', { hasText: 'Offers for 9780194837125' }).waitFor();
    await op.reload();
    await op.locator('main h2', { hasText: 'Offers for 9780194837125' }).waitFor();
    expect(await op.locator('main td[data-label="EAN"]').allTextContents()).toEqual(['9780194837125']);
    await op.goBack();
    await heading(op, 'Offers');
    expect(path(op)).toBe('/dashboard/offers');
    // The search's page has the same heading, and the unsearched page draws its rows only once they arrive.
    await expect.poll(() => op.locator('main td[data-label="EAN"]').count()).toBe(2);

    await section(op, 'Schools & lists', 'Schools & lists');
    await op.getByLabel('Show archived lists').check();
    await op.waitForURL(`${w.base}/dashboard/lists?archived=1`);
    await op.reload();
    await heading(op, 'Schools & lists');
    expect(await op.getByLabel('Show archived lists').isChecked()).toBe(true);
  });

  it.skipIf(skipBrowser)('console: a bookmarked address opens its section after sign-in', async () => {
    const op = await w.page('operator');
    await op.goto(`${w.base}/dashboard/storage`);
    await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await op.getByRole('button', { name: 'Sign in' }).click();
    expect(await heading(op, 'Storage')).toBe('Storage');
    expect(path(op)).toBe('/dashboard/storage');
  });

  it.skipIf(skipBrowser)(
    "portal: the log's filters and one subscription's log are in the address; reload and Back keep them",
    async () => {
      const { client } = await deliveredList();
      const pt = await w.partner(client);
      await section(pt, 'Deliveries', 'Deliveries');
      await pt.getByLabel('Status').selectOption('failed');
      await pt.getByRole('button', { name: 'Filter' }).click();
      await pt.waitForURL(`${w.base}/portal/deliveries?status=failed`);
      await expect.poll(() => pt.locator('main tbody tr').count()).toBe(1);
      expect(await pt.locator('main tbody tr').textContent()).toContain(w.flaky.url);
      await pt.reload();
      await heading(pt, 'Deliveries');
      expect(await pt.getByLabel('Status').inputValue()).toBe('failed');
      await expect.poll(() => pt.locator('main tbody tr').count()).toBe(1);

      // One subscription's log: asked of the server (paged there), and named in the address.
      const okSubscription = await w.h.database.db.kysely
        .selectFrom('subscriptions')
        .select('id')
        .where('notification_url', '=', w.ok.url)
        .executeTakeFirstOrThrow();
      await section(pt, 'Subscriptions', 'Subscriptions');
      await pt.locator('main tr', { hasText: w.ok.url }).getByRole('button', { name: 'Deliveries' }).click();
      await pt.waitForURL(`${w.base}/portal/deliveries?subscription=${okSubscription.id}`);
      await pt.getByText('Showing one subscription only.').waitFor();
      await pt.reload();
      await pt.getByText('Showing one subscription only.').waitFor();
      const rows = pt.locator('main tbody tr');
      await expect.poll(() => rows.count()).toBe(1);
      expect(await rows.textContent()).toContain(w.ok.url);

      await pt.goBack();
      await heading(pt, 'Subscriptions');
      await pt.goBack();
      await heading(pt, 'Deliveries');
      expect(path(pt)).toBe('/portal/deliveries?status=failed');
      expect(await pt.getByLabel('Status').inputValue()).toBe('failed');
    },
  );

  it.skipIf(skipBrowser)(
    "portal: the sections and a delivery's attempts have addresses; Back, Forward and reload keep them",
    async () => {
      const { client } = await deliveredList();
      const pt = await w.partner(client);
      expect(path(pt)).toBe('/portal');
      await section(pt, 'Subscriptions', 'Subscriptions');
      expect(path(pt)).toBe('/portal/subscriptions');
      await section(pt, 'Deliveries', 'Deliveries');
      expect(path(pt)).toBe('/portal/deliveries');
      const delivery = await w.h.database.db.kysely
        .selectFrom('deliveries')
        .innerJoin('subscriptions', 'subscriptions.id', 'deliveries.subscription_id')
        .select('deliveries.id')
        .where('subscriptions.notification_url', '=', w.ok.url)
        .executeTakeFirstOrThrow();
      await pt.locator('main tr', { hasText: w.ok.url }).getByRole('button', { name: 'Attempts' }).click();
      await pt.locator('#delivery-detail .panel .id', { hasText: delivery.id }).waitFor();
      expect(path(pt)).toBe(`/portal/deliveries/${delivery.id}`);

      await pt.reload();
      await pt.locator('#delivery-detail .panel .id', { hasText: delivery.id }).waitFor();
      expect(await heading(pt, 'Deliveries')).toBe('Deliveries');

      await pt.goBack();
      await heading(pt, 'Deliveries');
      expect(path(pt)).toBe('/portal/deliveries');
      await expect.poll(() => pt.locator('#delivery-detail').textContent()).toBe('');
      await pt.goBack();
      expect(await heading(pt, 'Subscriptions')).toBe('Subscriptions');
      await pt.goForward();
      await heading(pt, 'Deliveries');
      expect(path(pt)).toBe('/portal/deliveries');
    },
  );
});
