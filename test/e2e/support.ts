/**
 * The browser tests' world: per test an instance of its own (a database, a listening server whose clock
 * follows the wall clock, a running delivery worker, two loopback receivers) and pages in browser
 * contexts of their own (each a fresh profile: its own cookies and storage); only the Chromium process
 * is shared by a file's tests. Also the steps the tests share: sign in, open a section, take pictures.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, ConsoleMessage, Dialog, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { Config } from '../../src/config.js';
import type { Engine } from '../../src/db/database.js';
import { addStats, uncountFinished } from '../../src/delivery/stats.js';
import { type Receiver, startReceiver } from '../delivery/support.js';
import { launchBrowser, skipBrowser } from '../support/browser.js';
import {
  ADMIN_TOKEN,
  createClientWithToken,
  createHarness,
  type Harness,
  type TestClient,
} from '../support/harness.js';

export const HOSTILE = '<img src=x onerror=alert(1)>';
const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');
export const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

export interface World {
  engine: Engine;
  h: Harness;
  base: string;
  /** Answers 200 "thanks". */
  ok: Receiver;
  /** Answers 500 until `flakyUp` is set. */
  flaky: Receiver;
  flakyUp: boolean;
  /** Added to the wall clock: lets a test jump past the link lifetime. */
  offset: number;
  /** Console errors and page errors of every page of the test. */
  problems: string[];
  /** Every dialog shown (and accepted). */
  dialogs: string[];
  /** The test's pages by who holds them. */
  pages: [string, Page][];
  /** A page in a browser context of its own, watched for errors and dialogs. */
  page(who: string): Promise<Page>;
  close(): Promise<void>;
  // The steps the tests share, on the world they act in.
  /** The operator's console, signed in with the admin token, on the overview. */
  operator(): Promise<Page>;
  /** A client made through the admin API, with a token. */
  shop(name?: string): Promise<TestClient>;
  /** A one-time portal sign-in link for the client, made through the admin API: its path. */
  portalLink(client: TestClient): Promise<string>;
  /** The client's partner, signed in through a portal link in a browser of its own, on the credentials page. */
  partner(client: TestClient): Promise<Page>;
  /** Subscribes the client's two receivers (ok, flaky) to list.published through the API, as the portal does. */
  subscribeReceivers(client: TestClient): Promise<void>;
  /** A school named `school`, its list `name` published through the admin API: the list's identifier. */
  publishedList(school?: string, name?: string): Promise<string>;
  /** The flaky receiver's newest delivery, put into the state a test needs (as the worker would leave it). */
  setFlakyDelivery(change: FlakyChange): Promise<string>;
  /** Desktop and phone pictures; `rerender` draws the page again at the new width (the chart sizes itself when drawn). */
  shoot(page: Page, name: string, rerender?: () => Promise<void>): Promise<void>;
  /** Runs a step that is expected to make the browser log failed requests (401/403/404), then forgets them. */
  expectingRefusals<T>(step: () => Promise<T>): Promise<T>;
}

type FlakyChange = { status: 'pending'; nextAttemptAt: number } | { status: 'failed' };

/** `config` overrides the test configuration (e.g. a retry schedule; by default a failed delivery is final at once). */
export async function openWorld(engine: Engine, browser: Browser, config: Partial<Config> = {}): Promise<World> {
  const h = await createHarness(engine, { webhookAllowPrivate: true, webhookRetryScheduleSeconds: [], ...config });
  const world: World = {
    engine,
    h,
    base: '',
    ok: await startReceiver(() => ({ status: 200, body: 'thanks' })),
    flaky: await startReceiver(() =>
      world.flakyUp ? { status: 200, body: 'back up' } : { status: 500, body: 'receiver broken' },
    ),
    flakyUp: false,
    offset: 0,
    problems: [],
    dialogs: [],
    pages: [],
    page: async (who) => {
      const context = await browser.newContext({ viewport: DESKTOP });
      const page = await context.newPage();
      watch(world, page, who);
      world.pages.push([who, page]);
      return page;
    },
    close: async () => {
      for (const [, page] of world.pages) await page.context().close();
      await stopWorker();
      clearInterval(ticker);
      await world.ok.close();
      await world.flaky.close();
      await h.close();
    },
    operator: () => operator(world),
    shop: (name) => shop(world, name),
    portalLink: (client) => portalLink(world, client),
    partner: (client) => partner(world, client),
    subscribeReceivers: (client) => subscribeReceivers(world, client),
    publishedList: (school, name) => publishedList(world, school, name),
    setFlakyDelivery: (change) => setFlakyDelivery(world, change),
    shoot: (page, name, rerender) => shoot(world, page, name, rerender),
    expectingRefusals: (step) => expectingRefusals(world, step),
  };
  // The app's clock follows the wall clock (plus `offset`), so the worker's schedule and the page's relative times agree.
  h.clock.set(Date.now());
  const ticker = setInterval(() => h.clock.set(Date.now() + world.offset), 50);
  world.base = await h.listen();
  const stopWorker = h.services.startWorker({ pollIntervalMs: 100 }).stop;
  return world;
}

function watch(world: World, page: Page, who: string): void {
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') world.problems.push(`${who} console: ${message.text()}`);
  });
  page.on('pageerror', (error) => world.problems.push(`${who} page error: ${error.message}`));
  page.on('dialog', (dialog: Dialog) => {
    world.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void (dialog.type() === 'prompt' ? dialog.accept(dialog.defaultValue()) : dialog.accept());
  });
  // Generous: under a full parallel test run on 2 cores a step can take several seconds.
  page.setDefaultTimeout(20_000);
}

/** A failed test leaves a picture of each of its pages and what their notice bars said, for diagnosis. */
export async function keepFailure(world: World, testName: string): Promise<void> {
  const dir = join(process.cwd(), 'test-artifacts', 'failures');
  await mkdir(dir, { recursive: true });
  const slug = `${world.engine}-${testName.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`;
  for (const [who, page] of world.pages) {
    await page.screenshot({ path: join(dir, `${slug}-${who}.png`), fullPage: true }).catch(() => undefined);
    const notice = await page
      .locator('#notice')
      .textContent()
      .catch(() => '?');
    console.warn(`[browser ${world.engine}] ${who} notice after failure: ${notice}`);
  }
}

/**
 * The lifecycle every browser test file shares, registered in the calling describe block: one Chromium
 * for the file, and per test a world opened on demand (with config overrides if the test needs them).
 * After each test the world is closed, a failure's pages kept, and no browser console error allowed.
 */
export function useBrowserWorlds(engine: Engine): (config?: Partial<Config>) => Promise<World> {
  let browser: Browser | undefined;
  let current: World | undefined;
  beforeAll(async () => {
    if (!skipBrowser) browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => browser?.close());
  afterEach(async (context) => {
    const world = current;
    current = undefined;
    if (world === undefined) return;
    if (context.task.result?.state === 'fail') await keepFailure(world, context.task.name);
    const problems = [...world.problems];
    await world.close();
    // Whatever a test did, it left no error in any of its browsers' consoles.
    expect(problems).toEqual([]);
  }, 30_000);
  return async (config = {}) => {
    if (browser === undefined) throw new Error('no browser: the test should be skipped (skipBrowser)');
    current = await openWorld(engine, browser, config);
    return current;
  };
}

/**
 * useBrowserWorlds for a describe block whose every test works in the default world: opened before
 * each test and handed to `take` (the block's `w`).
 */
export function useBrowserWorldEachTest(engine: Engine, take: (world: World) => void): void {
  const open = useBrowserWorlds(engine);
  beforeEach(async () => take(await open()), 60_000);
}

async function expectingRefusals<T>(world: World, step: () => Promise<T>): Promise<T> {
  const result = await step();
  world.problems.length = 0;
  return result;
}

async function shoot(world: World, page: Page, name: string, rerender?: () => Promise<void>): Promise<void> {
  if (world.engine !== 'sqlite') return; // one set of pictures is enough
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
export async function section(page: Page, name: string, heading: string): Promise<void> {
  await page.evaluate("document.querySelector('main > section')?.setAttribute('data-stale', '')");
  await page.locator('nav').getByRole('button', { name, exact: true }).click();
  await page.locator('main > section:not([data-stale]) h1', { hasText: heading }).waitFor();
}

async function operator(world: World): Promise<Page> {
  const page = await world.page('operator');
  await page.goto(`${world.base}/dashboard`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('main h1', { hasText: 'Overview' }).waitFor();
  return page;
}

const shop = (world: World, name = `Boekhandel Noord ${world.engine}`): Promise<TestClient> =>
  createClientWithToken(world.h, name);

async function portalLink(world: World, client: TestClient): Promise<string> {
  const link = await world.h.asAdmin().post(`/api/admin/v1/clients/${client.id}/portal-link`);
  expect(link.statusCode).toBe(201);
  return link.json<{ path: string }>().path;
}

async function partner(world: World, client: TestClient): Promise<Page> {
  const page = await world.page('partner');
  await page.goto(`${world.base}${await portalLink(world, client)}`);
  await page.locator('main h1', { hasText: 'Credentials' }).waitFor();
  return page;
}

async function subscribeReceivers(world: World, client: TestClient): Promise<void> {
  for (const receiver of [world.ok, world.flaky]) {
    const created = await world.h
      .as(client)
      .post('/api/lml/v1/subscriptions', { notificationUrl: receiver.url, event: 'list.published' });
    expect(created.statusCode).toBe(201);
  }
}

async function publishedList(world: World, school = HOSTILE, name = 'ICT jaar 1'): Promise<string> {
  const admin = world.h.asAdmin();
  const created = await admin.post('/api/admin/v1/schools', { name: school, type: 'HBO', location: 'Amsterdam' });
  expect(created.statusCode).toBe(201);
  const identifier = created.json<{ identifier: string }>().identifier;
  const list = await admin.post('/api/admin/v1/lists', { school: identifier, name, tags: ['Amsterdam', '2026-2027'] });
  expect(list.statusCode).toBe(201);
  const id = list.json<{ identifier: string }>().identifier;
  expect((await admin.post(`/api/admin/v1/lists/${id}/status`, { status: 'published' })).statusCode).toBe(200);
  return id;
}

async function setFlakyDelivery(world: World, change: FlakyChange): Promise<string> {
  const { h, flaky } = world;
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
  // A delivery still due or in flight (a retry asked for before) would be sent and its outcome
  // recorded over the state set here: wait until it has settled.
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
