/**
 * A viewer and a support operator walk every page of the console in a real browser. Every control
 * their role may not use is disabled and says why; every control left enabled works when clicked:
 * it changes something the role may change (2xx), or only reads and navigates. No click is answered
 * 403 and no notice reports a failure. The role check is the page's (the API refuses the rest
 * anyway, test/operators/roles.test.ts); the engine under it plays no part, so one engine serves.
 */
import type { Page, Request, Response } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { CONSOLE_COOKIE } from '../../src/identity/sessions.js';
import type { Role } from '../../src/vocabulary/actor.js';
import { skipBrowser } from '../support/browser.js';
import { useBrowserWorlds, type World } from './support.js';

const MATH = '9789001891442';

/** The label of each enabled control in the page's main part, numbered when a label repeats. */
const enabledControls = (page: Page) =>
  page.evaluate(`(() => {
    const seen = new Map();
    return [...document.querySelectorAll('main button:not([disabled])')].map((b) => {
      const label = b.textContent.trim();
      const n = seen.get(label) ?? 0;
      seen.set(label, n + 1);
      return [label, n];
    });
  })()`) as Promise<[string, number][]>;

/** Disabled buttons without a reason: neither a title nor a visible description. */
const silentlyDisabled = (page: Page) =>
  page.evaluate(`[...document.querySelectorAll('main button[disabled]')]
    .filter((b) => !b.title && !document.getElementById(b.getAttribute('aria-describedby') || '')?.textContent)
    .map((b) => b.textContent.trim())`) as Promise<string[]>;

/**
 * Clicks, then waits until every API request the click started has been answered and none has started
 * for a moment (a re-render after the change, the notice after it): the answers to those requests.
 * A load state cannot serve here: the page reached "network idle" before the click, and stays there.
 */
async function clickAndSettle(page: Page, click: () => Promise<void>): Promise<Response[]> {
  const inFlight = new Set<Request>();
  const answers: Response[] = [];
  let lastChange = Date.now();
  const started = (request: Request) => {
    if (!request.url().includes('/api/')) return;
    inFlight.add(request);
    lastChange = Date.now();
  };
  const ended = async (request: Request) => {
    if (!inFlight.has(request)) return;
    const answer = await request.response();
    if (answer) answers.push(answer);
    inFlight.delete(request);
    lastChange = Date.now();
  };
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  try {
    await click();
    await expect
      .poll(() => inFlight.size === 0 && Date.now() - lastChange >= 300, { timeout: 15_000, interval: 50 })
      .toBe(true);
  } finally {
    page.off('request', started);
    page.off('requestfinished', ended);
    page.off('requestfailed', ended);
  }
  return answers;
}

describe('console controls by role', () => {
  const openWorldFor = useBrowserWorlds('sqlite');
  let w: World;
  const pages: string[] = [];

  beforeEach(async () => {
    // A failed delivery (the flaky receiver), its failing subscription, a client, a school with a
    // published list and an offer: every page has rows and their controls.
    w = await openWorldFor();
    const client = await w.shop();
    await w.subscribeReceivers(client);
    const list = await w.publishedList('Het Baken', 'vwo 5');
    await w.flaky.waitFor(1, 10_000);
    const delivery = await w.setFlakyDelivery({ status: 'failed' });
    const offer = await w.h.asAdmin().post('/api/admin/v1/offers', { ean: MATH, price: 10, condition: 'good' });
    expect(offer.statusCode).toBe(201);
    const flakySubscription = () =>
      w.h.database.db.kysely
        .selectFrom('subscriptions')
        .select(['id', 'failing_since'])
        .where('notification_url', '=', w.flaky.url)
        .executeTakeFirstOrThrow();
    // Its failing period has begun, so the banner's "Send again what failed" is on the page.
    await expect.poll(async () => (await flakySubscription()).failing_since !== null, { timeout: 15_000 }).toBe(true);
    const subscription = await flakySubscription();
    pages.length = 0;
    pages.push(
      'overview',
      'clients',
      `clients/${client.id}`,
      'lists',
      `lists/${list}`,
      'offers',
      'subscriptions',
      `subscriptions/${subscription.id}`,
      'deliveries',
      `deliveries/${delivery}`,
      'storage',
      'audit',
    );
  }, 60_000);

  async function signIn(role: Role): Promise<Page> {
    const { sessionId } = await w.h.services.webSessions.startConsole({
      issuer: 'https://idp.example',
      sub: `${role}-sub`,
      email: `${role}@example.test`,
      name: `A ${role}`,
      role,
    });
    const page = await w.page(role);
    await page.context().addCookies([{ name: CONSOLE_COOKIE, value: sessionId, url: w.base }]);
    return page;
  }

  async function open(page: Page, path: string): Promise<void> {
    await page.goto(`${w.base}/dashboard/${path}`);
    await page.locator('main > section h1').first().waitFor();
    await page.waitForLoadState('networkidle');
  }

  /**
   * Clicks every enabled control of every page, each on a freshly opened page: what each click
   * changed (method and path of each non-GET request, with its status), and what went wrong.
   */
  async function walk(page: Page): Promise<{ changed: string[]; wrong: string[] }> {
    const changed: string[] = [];
    const wrong: string[] = [];
    page.on('response', (answer) => {
      if (answer.url().includes('/api/') && answer.status() >= 400)
        wrong.push(`${answer.request().method()} ${new URL(answer.url()).pathname} was answered ${answer.status()}`);
    });
    for (const path of pages) {
      await open(page, path);
      for (const label of await silentlyDisabled(page)) wrong.push(`${path}: "${label}" is disabled without a reason`);
      for (const [label, n] of await enabledControls(page)) {
        await open(page, path);
        // A time to replay from, as a person would choose one first.
        for (const field of await page.locator('main input[type="datetime-local"]:not([disabled])').all())
          await field.fill('2020-01-01T00:00');
        const control = page.locator('main button:not([disabled])', { hasText: label }).filter({
          has: page.locator(`xpath=self::*[normalize-space(.)=${JSON.stringify(label)}]`),
        });
        if ((await control.count()) <= n) continue; // an earlier click changed what the page offers
        const answers = await clickAndSettle(page, () => control.nth(n).click());
        for (const answer of answers) {
          const request = answer.request();
          const where = `${request.method()} ${new URL(answer.url()).pathname}`;
          if (request.method() !== 'GET') changed.push(`${label}: ${where} ${answer.status()}`);
        }
        if ((await page.locator('#notice').getAttribute('class')) === 'error')
          wrong.push(`${path}: "${label}" reported ${await page.locator('#notice').textContent()}`);
      }
    }
    return { changed: [...new Set(changed.map((line) => line.replace(/\/(dlv|sub|cli)_[^/ ]+/g, '/{id}')))], wrong };
  }

  it.skipIf(skipBrowser)(
    'a viewer finds every changing control disabled with its reason',
    async () => {
      const page = await signIn('viewer');
      const { changed, wrong } = await walk(page);
      expect(wrong).toEqual([]);
      expect(changed).toEqual([]);
      await open(page, 'subscriptions');
      const replay = page.locator('main button', { hasText: /^Replay$/ }).first();
      expect(await replay.isDisabled()).toBe(true);
      expect(await replay.getAttribute('title')).toBe('Needs the support role; you are signed in as viewer.');
      expect(await page.locator('main input[name="replay-since"]').first().isDisabled()).toBe(true);
      await w.shoot(page, 'console-subscriptions-viewer');
    },
    240_000,
  );

  it.skipIf(skipBrowser)(
    'a support operator may use exactly the support controls, and each succeeds',
    async () => {
      const page = await signIn('support');
      const { changed, wrong } = await walk(page);
      expect(wrong).toEqual([]);
      expect(changed.sort()).toEqual([
        'Portal link: POST /api/admin/v1/clients/{id}/portal-link 201',
        'Replay: POST /api/admin/v1/subscriptions/{id}/replay 202',
        'Retry: POST /api/admin/v1/deliveries/{id}/retry 202',
        'Send again what failed: POST /api/admin/v1/subscriptions/{id}/recover-failed 200',
      ]);
      await open(page, 'clients');
      await w.shoot(page, 'console-clients-support');
    },
    240_000,
  );
});
