/**
 * The console's Storage view in a real browser (Debian's Chromium via playwright-core): the operator
 * signs in, opens Storage and reads the rows, the oldest row and the bound of each table (the audit
 * log's among them), the database's size and the retention in force; after a prune the same page
 * shows the last prune.
 * Screenshots at 1280 and 390 px go to test-artifacts/screenshots (SQLite).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { type BrowserSession, launchChromium, skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../support/harness.js';
import { DAY, History } from './support.js';

const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');
const PHONE = { width: 390, height: 844 };

describeEachEngine('the Storage view in the browser', (engine) => {
  let h: Harness;
  let base: string;
  let browser: BrowserSession;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    if (skipBrowser) return;
    h = await createHarness(engine);
    // The page shows times relative to the browser's clock: the app's follows the wall clock.
    h.clock.set(Date.now());
    const now = h.clock.now();
    const history = await new History(h.database.db, now).setUp();
    for (const [n, age] of [
      [1, 120],
      [2, 45],
      [3, 2],
    ] as const) {
      await history.event(`evt_${n}`, now - age * DAY);
      await history.delivery({
        id: `dlv_${n}`,
        event: `evt_${n}`,
        status: 'succeeded',
        createdAt: now - age * DAY,
        completedAt: now - age * DAY,
      });
    }
    // Two audit records older than AUDIT_RETENTION_DAYS (400), which the prune below removes.
    h.clock.set(now - 401 * DAY);
    for (const _ of [1, 2])
      await h.services.work.run(SYSTEM, async ({ record }) => record('retention.pruned', 'prune'));
    h.clock.set(now);
    base = await h.listen();
    browser = await launchChromium({ width: 1280, height: 900 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const open = async (): Promise<void> => {
    await page.evaluate("document.querySelector('main > section')?.setAttribute('data-stale', '')");
    await page.locator('nav').getByRole('button', { name: 'Storage', exact: true }).click();
    await page.locator('main > section:not([data-stale]) h1', { hasText: 'Storage' }).waitFor();
  };
  const cells = (table: string) =>
    page
      .locator('main tr', { has: page.locator('code', { hasText: new RegExp(`^${table}$`) }) })
      .locator('td')
      .allInnerTexts();

  it.skipIf(skipBrowser)('shows rows, oldest rows and bounds per table, then the last prune', async () => {
    await page.goto(`${base}/dashboard`);
    await page.getByPlaceholder('ADMIN_TOKEN').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('nav').waitFor({ state: 'visible' });
    await open();
    expect(await cells('deliveries')).toEqual([
      'deliveries',
      '3',
      '4 months ago',
      'succeeded older than 30 days, failed older than 90 days (since completion); pending never',
    ]);
    expect(await cells('idempotency_keys')).toEqual([
      'idempotency_keys',
      '0',
      '—',
      'expired (24 hours after the first request)',
    ]);
    expect(await cells('audit_records')).toEqual([
      'audit_records',
      '2',
      'last year',
      'audit records older than 400 days',
    ]);
    expect(await page.locator('main .card .value').allTextContents()).toEqual([
      expect.stringMatching(/^[\d.]+ (B|kB|MB|GB)$/),
      'every 60 min',
      '30 days',
      '90 days',
      '90 days',
      '7 days',
    ]);
    expect(await page.locator('main .card .label').allTextContents()).toEqual([
      `database (${engine})`,
      'automatic prune',
      'succeeded deliveries kept',
      'failed deliveries kept',
      'events kept',
      'response bodies kept',
    ]);
    expect(await page.locator('main').textContent()).toContain('No prune yet. The worker prunes every 60 minutes');
    if (engine === 'sqlite') await shoot('storage-before');

    await h.services.retention.prune();
    await open();
    expect((await cells('deliveries')).slice(1, 3)).toEqual(['1', '2 days ago']);
    // The old audit records went; the prune recorded itself.
    expect((await cells('audit_records')).slice(1, 3)).toEqual([
      '1',
      expect.stringMatching(/^(now|\d+ seconds? ago)$/),
    ]);
    const text = await page.locator('main').textContent();
    expect(text).toMatch(/Finished (now|\d+ seconds? ago) after 0 s\./);
    // The last prune's rows: two deliveries with their attempts, the event no delivery refers to, and
    // the two old audit records.
    const rows = page.locator('main table').last().locator('tbody tr');
    const pruned = [];
    for (const row of await rows.all()) pruned.push(await row.locator('td').allInnerTexts());
    expect(pruned).toEqual([
      ['deliveries', '2'],
      ['delivery_attempts', '2'],
      ['events', '1'],
      ['audit_records', '2'],
    ]);
    if (engine === 'sqlite') await shoot('storage-after');
    expect(problems).toEqual([]);
  });

  async function shoot(name: string): Promise<void> {
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}-1280.png`), fullPage: true });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: join(SHOTS, `${name}-390.png`), fullPage: true });
    expect(
      await page.evaluate('document.documentElement.scrollWidth'),
      `${name} is wider than the phone`,
    ).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});
