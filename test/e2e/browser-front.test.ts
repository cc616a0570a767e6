/**
 * The pages a newcomer opens first, in a real browser: GET / and the API reference at /docs. The
 * reference must be Shelfmark's (its name and logo, no renderer "Explore" box), show `<token>` as
 * text, put the integrator sections before the operator API, load nothing from another origin and
 * run under its CSP without console errors. Screenshots at 1280 and 390 px go to test-artifacts/screenshots.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserSession, launchChromium, skipBrowser } from '../support/browser.js';
import { createHarness, type Harness } from '../support/harness.js';

const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');

describe.skipIf(skipBrowser)('first pages in the browser', () => {
  let h: Harness;
  let base: string;
  let browser: BrowserSession;
  let page: Page;
  const problems: string[] = [];
  const offOrigin: string[] = [];

  beforeAll(async () => {
    h = await createHarness('sqlite');
    base = await h.listen();
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:')) offOrigin.push(request.url());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function shoot(name: string): Promise<void> {
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}-1280.png`), fullPage: false });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SHOTS, `${name}-390.png`), fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('GET / names the service and every link leads somewhere', async () => {
    await page.goto(`${base}/`);
    expect(await page.locator('h1').textContent()).toBe('Shelfmark');
    const links = await page
      .locator('main a')
      .evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
    expect(links).toEqual(['/docs', '/openapi.json', '/portal', '/dashboard', '/healthz', '/readyz']);
    await shoot('home');
    await page.locator('main a', { hasText: 'API reference' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/docs'));
  });

  it('/docs is Shelfmark’s reference: its logo, no Explore box, <token> as text, integrators first', async () => {
    await page.goto(`${base}/docs`);
    await page.locator('.opblock-tag-section').first().waitFor();
    expect(await page.title()).toBe('Shelfmark API reference');
    await expect.poll(() => page.locator('.topbar-wrapper img').getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(await page.locator('.download-url-wrapper').isVisible()).toBe(false);
    const intro = (await page.locator('.information-container .description').textContent()) ?? '';
    expect(intro).toContain('Authorization: Bearer <token>');
    const sections = await page
      .locator('.opblock-tag')
      .evaluateAll((tags) => tags.map((tag) => tag.getAttribute('data-tag')));
    expect(sections.slice(0, 5)).toEqual(['auth', 'offers', 'lml', 'subscriptions', 'operations']);
    expect(sections.slice(5).every((tag) => tag?.startsWith('admin: '))).toBe(true);
    await shoot('docs');
    expect(offOrigin).toEqual([]);
    expect(problems).toEqual([]);
  });
});
