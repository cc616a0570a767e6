/**
 * In a real browser, both languages: the NL | EN switch in the header (remembered in a cookie, so the
 * server-rendered pages follow), `<html lang>`, and every console and portal page walked in Dutch at
 * 1280 and 390 px, the failing-webhook story and a refused sign-in included, with none of the English
 * catalogue's sentences on any of them; then the same pages in English. Screenshots go to
 * test-artifacts/screenshots (lang-*).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DELIVERY_STATUSES } from '../../src/delivery/model.js';
import { EN, NL } from '../../src/i18n/catalogue.js';
import { fragments } from '../../src/i18n/message.js';
import { OFFER_STATUSES } from '../../src/offers/model.js';
import { SUBSCRIPTION_STATUSES } from '../../src/subscriptions/model.js';
import { LIST_STATUSES } from '../../src/vocabulary/list-statuses.js';
import { skipBrowser } from '../support/browser.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { section, useBrowserWorlds, type World } from './support.js';

/** The API's state words: shown as the API says them, beside their label ("failed · niet afgeleverd"). */
const API_WORDS = [...DELIVERY_STATUSES, ...SUBSCRIPTION_STATUSES, ...LIST_STATUSES, ...OFFER_STATUSES];

/** Words both languages write alike, or names: never evidence of an untranslated text. */
const SHARED = new Set([
  ...API_WORDS,
  'Shelfmark',
  'Status',
  'Partner',
  'Partners',
  'School',
  'Webhook',
  'Audit',
  'Subject',
  'EAN/ISBN',
]);

/** The English catalogue's text a Dutch page must not show: each message's fixed parts not also Dutch. */
const ENGLISH: readonly string[] = (() => {
  const dutch = Object.values(NL).flatMap(fragments).join('\n');
  const parts = Object.values(EN)
    .flatMap(fragments)
    .map((part) => part.trim().replace(/^[·:;,.()\s—→←↑↓]+|[·:;,.()\s—→←↑↓]+$/g, ''))
    .filter((part) => part.length >= 4 && /[a-z]{3}/.test(part) && !SHARED.has(part) && !dutch.includes(part));
  return [...new Set(parts)];
})();

const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A text as words of their own: an API word inside a name ("list.created", "/subscriptions") is not prose. */
const PATTERNS = ENGLISH.map((part) => [part, new RegExp(`(^|[\\s("'])${literal(part)}($|[\\s)"',.:;!?…])`)] as const);

/** Run in the page (a string: the tests compile without the DOM library). */
const READABLE = `(() => {
  const attributes = [...document.querySelectorAll('[title],[placeholder],[aria-label]')].flatMap((node) =>
    ['title', 'placeholder', 'aria-label'].map((name) => node.getAttribute(name) ?? ''));
  let text = document.body.innerText;
  for (const code of document.querySelectorAll('code, pre')) text = text.replace(code.textContent ?? '', ' ');
  return [document.title, text, ...attributes].join('\\n');
})()`;

/**
 * Everything a person reads on the page: its title, its rendered text (innerText: not hidden or
 * <noscript> text; code left out, as it is a name, not prose), tooltips, placeholders and accessible names.
 */
const readable = (page: Page): Promise<string> => page.evaluate<string>(READABLE);

/** Fails naming every English text found on a Dutch page. */
async function allDutch(page: Page, where: string): Promise<void> {
  expect(await page.getAttribute('html', 'lang'), where).toBe('nl');
  const text = await readable(page);
  const found = PATTERNS.filter(([, pattern]) => pattern.test(text)).map(([part]) => part);
  expect(found, `${where}: English text on a Dutch page`).toEqual([]);
}

/** Clicks the header's switch and waits for the page to come back in that language. */
async function choose(page: Page, lang: 'nl' | 'en'): Promise<void> {
  await page.locator(`header a[data-lang="${lang}"]`).click();
  // Asked while the switch navigates, the page may have no document element for a moment.
  await page.waitForFunction(`document.documentElement?.lang === '${lang}'`);
}

/** A page reached by its address, drawn once its heading shows. */
async function open(page: Page, world: World, path: string, heading: string): Promise<void> {
  await page.goto(`${world.base}${path}`);
  await page.locator('main h1', { hasText: heading }).first().waitFor();
}

async function story(w: World) {
  const client = await w.shop('Boekhandel Noord');
  await w.subscribeReceivers(client);
  const list = await w.publishedList('Hogeschool Amstelland', 'Bedrijfskunde jaar 1');
  const offer = await w.h
    .asAdmin()
    .post('/api/admin/v1/offers', { ean: '9789001891442', price: 12.5, condition: 'good' });
  expect(offer.statusCode).toBe(201);
  // The flaky receiver answers 500: its delivery fails for good (no retries here), the subscription is failing.
  await expect
    .poll(
      async () =>
        (await w.h.asAdmin().get('/api/admin/v1/deliveries?status=failed')).json<{ data: unknown[] }>().data.length,
      {
        timeout: 15_000,
      },
    )
    .toBe(1);
  const failed = (await w.h.asAdmin().get('/api/admin/v1/deliveries?status=failed')).json<{
    data: { id: string; subscriptionId: string }[];
  }>().data[0];
  if (failed === undefined) throw new Error('no failed delivery');
  return { client, list, failed };
}

/** The pages are the same on both engines: SQLite only. */
describe('the pages in Dutch and English', () => {
  const world = useBrowserWorlds('sqlite');
  const SLOW = 180_000;

  it.skipIf(skipBrowser)(
    'a Dutch browser gets Dutch pages, an English one English; the switch is remembered',
    async () => {
      const w = await world();
      const get = (path: string, headers: Record<string, string>) => w.h.anonymous().get(path, { headers });
      const dutchBrowser = { accept: 'text/html', 'accept-language': 'nl-NL,nl;q=0.9,en-US;q=0.8,en;q=0.7' };
      for (const path of ['/', '/dashboard', '/dashboard/deliveries', '/portal', '/dashboard/login/oidc']) {
        expect((await get(path, dutchBrowser)).body, path).toContain('<html lang="nl">');
        expect((await get(path, { accept: 'text/html', 'accept-language': 'en-US,en;q=0.9,nl;q=0.5' })).body).toContain(
          '<html lang="en">',
        );
        expect((await get(path, { ...dutchBrowser, cookie: 'shelfmark_lang=en' })).body).toContain('<html lang="en">');
      }
      expect((await get('/dashboard', { accept: 'text/html', 'accept-language': 'de-DE,fr;q=0.8' })).body).toContain(
        '<html lang="en">',
      );
      const switched = await get('/language/nl?back=%2Fdashboard%2Fdeliveries%3Fstatus%3Dfailed', {});
      expect(switched.statusCode).toBe(303);
      expect(switched.headers.location).toBe('/dashboard/deliveries?status=failed');
      expect(String(switched.headers['set-cookie'])).toMatch(
        /^shelfmark_lang=nl; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax/,
      );
      for (const away of ['//evil.example/x', 'https://evil.example/', '/\\evil.example'])
        expect((await get(`/language/en?back=${encodeURIComponent(away)}`, {})).headers.location, away).toBe('/');
      expect((await get('/language/de', {})).statusCode).toBe(404);
    },
    SLOW,
  );

  it.skipIf(skipBrowser)(
    'every console page, sign-in and refusal in Dutch: no English text, at 1280 and 390 px',
    async () => {
      const w = await world();
      const { client, list, failed } = await story(w);
      const op = await w.page('operator');
      await op.goto(`${w.base}/dashboard`);
      await op.getByLabel('Admin token').waitFor();
      await choose(op, 'nl');
      await allDutch(op, 'sign-in');
      await w.shoot(op, 'lang-nl-signin');
      await op.getByLabel('Beheertoken').fill(ADMIN_TOKEN);
      await op.getByRole('button', { name: 'Inloggen' }).click();
      await op.locator('main h1', { hasText: 'Overzicht' }).waitFor();
      const sections: [string, string, string][] = [
        ['Overzicht', 'Overzicht', 'overview'],
        ['Partners', 'Partners', 'clients'],
        ['Scholen & lijsten', 'Scholen & lijsten', 'lists'],
        ['Aanbod', 'Aanbod', 'offers'],
        ['Abonnementen', 'Webhookabonnementen', 'subscriptions'],
        ['Afleveringen', 'Afleverlogboek', 'deliveries'],
        ['Opslag', 'Opslag', 'storage'],
        ['Beheerders', 'Beheerders', 'operators'],
        ['Auditlog', 'Auditlog', 'audit'],
      ];
      for (const [button, heading, name] of sections) {
        await section(op, button, heading);
        await allDutch(op, name);
        await w.shoot(op, `lang-nl-console-${name}`, () => section(op, button, heading));
      }
      // The failing webhook: the banner and its click, in Dutch.
      await section(op, 'Abonnementen', 'Webhookabonnementen');
      const banner = op.locator('.banner.failing');
      expect(await banner.textContent()).toContain('elke poging is mislukt sinds');
      await banner.getByRole('button', { name: 'Het mislukte opnieuw versturen' }).click();
      await expect.poll(() => op.locator('#notice').textContent()).toContain('weer in de wachtrij');
      const pages: [string, string, string][] = [
        [`/dashboard/lists/${list}`, 'Bedrijfskunde jaar 1', 'list'],
        [`/dashboard/deliveries/${failed.id}`, 'Lijst gepubliceerd', 'delivery'],
        [`/dashboard/clients/${client.id}`, 'Boekhandel Noord', 'client'],
        [`/dashboard/subscriptions/${failed.subscriptionId}`, 'Boekhandel Noord', 'subscription'],
      ];
      for (const [path, heading, name] of pages) {
        await open(op, w, path, heading);
        await allDutch(op, name);
        await w.shoot(op, `lang-nl-console-${name}`);
      }
      // A sign-in refused (no identity provider is configured here), and the home page.
      await w.expectingRefusals(() => op.goto(`${w.base}/dashboard/login/oidc`));
      expect(await op.locator('h1').textContent()).toBe('Inloggen geweigerd');
      await allDutch(op, 'refusal');
      await w.shoot(op, 'lang-nl-refusal');
      await op.goto(`${w.base}/`);
      await allDutch(op, 'home');
      await w.shoot(op, 'lang-nl-home');
    },
    SLOW,
  );

  it.skipIf(skipBrowser)(
    'every portal page in Dutch, the failing webhook and a test ping included',
    async () => {
      const w = await world();
      const { client } = await story(w);
      const pt = await w.partner(client);
      await choose(pt, 'nl');
      await pt.locator('main h1', { hasText: 'Toegangsgegevens' }).waitFor();
      await allDutch(pt, 'portal credentials');
      await w.shoot(pt, 'lang-nl-portal-credentials');
      await section(pt, 'Abonnementen', 'Abonnementen');
      expect(await pt.locator('.banner.failing').textContent()).toContain('mislukte poging op rij');
      await pt.locator('tr', { hasText: w.ok.url }).getByRole('button', { name: 'Testping versturen' }).click();
      await expect.poll(() => pt.locator('#notice').textContent(), { timeout: 15_000 }).toContain('geslaagd');
      await allDutch(pt, 'portal subscriptions');
      await w.shoot(pt, 'lang-nl-portal-subscriptions');
      await section(pt, 'Afleveringen', 'Afleveringen');
      await pt.locator('tr', { hasText: w.flaky.url }).first().getByRole('button', { name: 'Pogingen' }).click();
      await pt.locator('#delivery-detail td').first().waitFor();
      await allDutch(pt, 'portal deliveries');
      await w.shoot(pt, 'lang-nl-portal-deliveries');
    },
    SLOW,
  );

  it.skipIf(skipBrowser)(
    'the same pages in English, and the switch back',
    async () => {
      const w = await world();
      const { client, list } = await story(w);
      const op = await w.page('operator');
      await op.goto(`${w.base}/dashboard`);
      await choose(op, 'nl');
      await choose(op, 'en');
      await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await op.getByRole('button', { name: 'Sign in' }).click();
      await op.locator('main h1', { hasText: 'Overview' }).waitFor();
      expect(await op.getAttribute('html', 'lang')).toBe('en');
      for (const [button, heading, name] of [
        ['Overview', 'Overview', 'overview'],
        ['Clients', 'API clients', 'clients'],
        ['Schools & lists', 'Schools & lists', 'lists'],
        ['Offers', 'Offers', 'offers'],
        ['Subscriptions', 'Webhook subscriptions', 'subscriptions'],
        ['Deliveries', 'Delivery log', 'deliveries'],
        ['Storage', 'Storage', 'storage'],
      ] as const) {
        await section(op, button, heading);
        await w.shoot(op, `lang-en-console-${name}`, () => section(op, button, heading));
      }
      expect(await op.locator('td[data-label="Buyer pays"]').count()).toBe(0);
      await section(op, 'Offers', 'Offers');
      expect(await op.locator('td[data-label="Buyer pays"]').first().textContent()).toBe('€14.49');
      await open(op, w, `/dashboard/lists/${list}`, 'Bedrijfskunde jaar 1');
      await w.shoot(op, 'lang-en-console-list');
      // The Dutch console writes the same money the Dutch way.
      await choose(op, 'nl');
      await section(op, 'Aanbod', 'Aanbod');
      expect(await op.locator('td[data-label="Koper betaalt"]').first().textContent()).toBe('€\u00a014,49');
      const pt = await w.partner(client);
      await section(pt, 'Subscriptions', 'Subscriptions');
      await w.shoot(pt, 'lang-en-portal-subscriptions');
    },
    SLOW,
  );
});
