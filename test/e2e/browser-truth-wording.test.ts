/**
 * In a real browser: the wording of the console and the portal, each asserted on the
 * visible text — failure reasons in words, plurals, "until" with a moment, the cut-off line of a new
 * client, the partner's name on a phone, the click an active failing subscription is offered, the
 * labelled recovery date, inline form errors, and the list status buttons. Each test has an instance
 * of its own (support.ts).
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { DESKTOP, section, useBrowserWorlds, type World } from './support.js';

const PHONE = { width: 390, height: 844 };
const HOUR = 3_600_000;

/** The text an "until" sentence must show for `iso`: the exact local moment, as the page formats it. */
const localMoment = (page: Page, iso: string): Promise<string> =>
  page.evaluate((at) => new Date(at).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' }), iso);

describeEachEngine('wording in the console and the portal', (engine) => {
  const world = useBrowserWorlds(engine);

  /** Waits until the admin API lists `count` deliveries of `status`. */
  const settled = (world: World, status: string, count: number) =>
    expect
      .poll(
        async () =>
          (await world.h.asAdmin().get(`/api/admin/v1/deliveries?limit=50&status=${status}`)).json<{
            data: unknown[];
          }>().data.length,
        { timeout: 15_000 },
      )
      .toBe(count);

  it.skipIf(skipBrowser)('a failure reads "HTTP 500" or "connection refused", never "http (HTTP 500)"', async () => {
    const w = await world();
    const client = await w.shop();
    for (const url of [w.flaky.url, 'http://127.0.0.1:9/closed']) {
      const created = await w.h
        .as(client)
        .post('/api/lml/v1/subscriptions', { notificationUrl: url, event: 'list.published' });
      expect(created.statusCode).toBe(201);
    }
    await w.publishedList();
    await settled(w, 'failed', 2);
    const pt = await w.partner(client);
    await section(pt, 'Deliveries', 'Deliveries');
    expect((await pt.locator('td[data-label="Outcome"]').allTextContents()).sort()).toEqual([
      'failed · not delivered (HTTP 500)',
      'failed · not delivered (connection refused)',
    ]);
    await pt.locator('tr', { hasText: '127.0.0.1:9' }).getByRole('button', { name: 'Attempts' }).click();
    await pt.locator('#delivery-detail td[data-label="Result"]').waitFor();
    expect(await pt.locator('#delivery-detail td[data-label="Result"]').textContent()).toBe(
      'failed · connection refused',
    );
    expect(await pt.locator('main').textContent()).not.toMatch(/\b(http|connect) \(/);
    const op = await w.operator();
    await section(op, 'Deliveries', 'Delivery log');
    expect((await op.locator('td[data-label="Outcome"]').allTextContents()).sort()).toEqual([
      'failed · not delivered (HTTP 500)',
      'failed · not delivered (connection refused)',
    ]);
  });

  it.skipIf(skipBrowser)(
    'recovering says "1 failed delivery" and "2 failed deliveries"; an active failing subscription is offered "Send again what failed", never "Re-enable"',
    async () => {
      const w = await world();
      const client = await w.shop();
      const subscribe = async (path: string) => {
        const created = await w.h
          .as(client)
          .post('/api/lml/v1/subscriptions', { notificationUrl: `${w.flaky.url}${path}`, event: 'list.published' });
        expect(created.statusCode).toBe(201);
        return created.json<{ id: string }>().id;
      };
      const two = await subscribe('/two');
      await w.publishedList('School A', 'List A');
      await settled(w, 'failed', 1);
      const one = await subscribe('/one');
      await w.publishedList('School B', 'List B');
      await settled(w, 'failed', 3);
      // `two` has 2 failed deliveries and is disabled; `one` has 1 and is still active, failing.
      const db = w.h.database.db.kysely;
      await db
        .updateTable('subscriptions')
        .set({
          status: 'disabled',
          disabled_reason: 'the receiver answered 500 for 5 days',
          failing_since: w.h.clock.now() - HOUR,
        })
        .where('id', '=', two)
        .execute();
      await db
        .updateTable('subscriptions')
        .set({ failing_since: w.h.clock.now() - HOUR })
        .where('id', '=', one)
        .execute();

      const pt = await w.partner(client);
      await section(pt, 'Subscriptions', 'Subscriptions');
      const disabled = pt.locator(`.banner[data-subscription="${two}"]`);
      const failing = pt.locator(`.banner[data-subscription="${one}"]`);
      expect(await disabled.getByRole('button').allTextContents()).toEqual(['Re-enable and recover what failed']);
      expect(await failing.getByRole('button').allTextContents()).toEqual(['Send again what failed']);
      // Re-enable is offered on the disabled subscription's row only.
      expect(
        await pt
          .locator('tr', { hasText: `${w.flaky.url}/one` })
          .getByRole('button', { name: /Re-enable/ })
          .count(),
      ).toBe(0);
      expect(
        await pt
          .locator('tr', { hasText: `${w.flaky.url}/two` })
          .getByRole('button', { name: 'Re-enable' })
          .count(),
      ).toBe(1);
      await w.shoot(pt, 'portal-subscriptions-failing');

      await disabled.getByRole('button', { name: 'Re-enable and recover what failed' }).click();
      await pt.locator('#notice', { hasText: 'queued again' }).waitFor();
      expect(await pt.locator('#notice').textContent()).toBe(
        'Re-enable and recover what failed: Re-enabled; 2 failed deliveries queued again.',
      );
      await pt
        .locator(`.banner[data-subscription="${one}"]`)
        .getByRole('button', { name: 'Send again what failed' })
        .click();
      await pt.locator('#notice', { hasText: '1 failed delivery' }).waitFor();
      expect(await pt.locator('#notice').textContent()).toBe('Send again what failed: 1 failed delivery queued again.');
    },
  );

  it.skipIf(skipBrowser)(
    "a new client's credentials say its secret was never reset; after a reset they name when",
    async () => {
      const w = await world();
      const pt = await w.partner(await w.shop());
      expect(await pt.locator('#tokens-valid-after').textContent()).toBe(
        'The client secret has not been reset since the client was created: every token minted with it is valid until it expires.',
      );
      await pt.getByRole('button', { name: 'Reset client secret' }).click();
      await pt.getByText('New client secret issued; the old one no longer works.').waitFor();
      // The notice comes with the reset's answer; the line follows once the client is read again.
      await pt.locator('#tokens-valid-after', { hasText: 'was last reset' }).waitFor();
      expect(await pt.locator('#tokens-valid-after').textContent()).toMatch(
        /^The client secret was last reset (now|\d+ seconds? ago): tokens minted before then are refused\.$/,
      );
    },
  );

  it.skipIf(skipBrowser)(
    'the old webhook secret signs "until" a moment, never "until in 24 hours" (portal and console)',
    async () => {
      const w = await world();
      const name = `Boekhandel Noord ${engine}`;
      const client = await w.shop(name);
      const pt = await w.partner(client);
      await pt.getByRole('button', { name: 'Rotate webhook secret' }).click();
      const note = pt.locator('#webhook-secret-output .secret p').last();
      await note.waitFor();
      const until = (await note.locator('time').getAttribute('datetime')) ?? '';
      expect(Date.parse(until)).toBeGreaterThan(Date.now());
      expect(await note.textContent()).toBe(
        `The old secret keeps signing as well until ${await localMoment(pt, until)}, so receivers can switch without losing a delivery.`,
      );
      expect(await note.locator('time').getAttribute('title')).toMatch(/^in \d+ hours? \(/);

      const op = await w.operator();
      await section(op, 'Clients', 'API clients');
      await op.locator('tr', { hasText: name }).getByRole('button', { name: 'Rotate webhook secret' }).click();
      const consoleNote = op.locator('.secret', { hasText: 'New webhook secret' }).locator('p').last();
      await consoleNote.waitFor();
      const consoleUntil = (await consoleNote.locator('time').getAttribute('datetime')) ?? '';
      expect(await consoleNote.textContent()).toBe(
        `The old secret keeps signing as well until ${await localMoment(op, consoleUntil)}, so receivers can switch without losing a delivery.`,
      );
      await op.locator('tr', { hasText: name }).getByRole('button', { name: 'Portal link' }).click();
      const linkNote = op.locator('.secret', { hasText: 'Portal sign-in link' }).locator('p').last();
      await linkNote.waitFor();
      const expires = (await linkNote.locator('time').getAttribute('datetime')) ?? '';
      expect(await linkNote.textContent()).toBe(
        `Works once, until ${await localMoment(op, expires)}. Send it to the partner over a channel you trust.`,
      );
    },
  );

  it.skipIf(skipBrowser)('on a phone the partner\'s name has a line of its own, without a leading "·"', async () => {
    const w = await world();
    const name = `Boekhandel Noord ${engine}`;
    const client = await w.shop(name);
    const pt = await w.partner(client);
    interface HeaderView {
      name: string;
      dot: string;
      ownLine: boolean;
      lines: string[];
    }
    // innerText: the header's lines as laid out on screen are the point.
    const header = () =>
      pt.evaluate(`(() => {
          const who = document.getElementById('who');
          const a = who.getBoundingClientRect();
          const b = document.querySelector('header .brand').getBoundingClientRect();
          return {
            name: who.textContent,
            dot: getComputedStyle(who, '::before').content,
            ownLine: a.top >= b.bottom - 1,
            lines: document.querySelector('header').innerText.split('\\n').map((l) => l.trim()),
          };
        })()`) as Promise<HeaderView>;
    expect(await header()).toMatchObject({ name, dot: '"· "', ownLine: false });
    await pt.setViewportSize(PHONE);
    const phone = await header();
    expect(phone).toMatchObject({ name, dot: 'none', ownLine: true });
    expect(phone?.lines.filter((line) => line.startsWith('·'))).toEqual([]);
    expect(phone?.lines).toContain(name);
    await pt.setViewportSize(DESKTOP);
    await w.shoot(pt, 'portal-credentials-name');
  });

  it.skipIf(skipBrowser)(
    'the recovery date has a label, and a refused subscription is explained once, under its field, by its label',
    async () => {
      const w = await world();
      const client = await w.shop();
      await w.h.as(client).post('/api/lml/v1/subscriptions', { notificationUrl: w.ok.url, event: 'list.published' });
      const pt = await w.partner(client);
      await section(pt, 'Subscriptions', 'Subscriptions');
      const since = pt.getByLabel('Recover failed deliveries since');
      expect(await since.count()).toBe(1);
      expect(await since.getAttribute('type')).toBe('datetime-local');
      // On a phone it stays inside its card's content.
      await pt.setViewportSize(PHONE);
      expect(
        await since.evaluate((input) => {
          // The cell's box: the card's content, inside its padding.
          const cell = input.closest('td')?.getBoundingClientRect();
          return cell !== undefined && input.getBoundingClientRect().right <= cell.right;
        }),
      ).toBe(true);
      await pt.setViewportSize(DESKTOP);

      await w.expectingRefusals(async () => {
        await pt.getByLabel('Receiver URL').fill('ftp://files.example/hook');
        await pt.getByRole('button', { name: 'Subscribe' }).click();
        await pt.locator('#error-url:not(:empty)').waitFor();
      });
      expect(await pt.locator('#error-url').textContent()).toBe('Receiver URL must use http or https, not ftp');
      expect(await pt.evaluate("getComputedStyle(document.getElementById('error-url')).color")).toBe(
        'rgb(180, 35, 24)',
      );
      expect(await pt.getByLabel('Receiver URL').getAttribute('aria-invalid')).toBe('true');
      expect(await pt.locator('#notice').textContent()).toBe('Subscription not created: see the form.');
      expect(await pt.locator('#notice').getAttribute('class')).toBe('error');
      expect(await pt.locator('body').textContent()).not.toContain('notificationUrl');
      // The error shows once: under the field, not again in the notice or elsewhere.
      expect(await pt.getByText('must use http or https').count()).toBe(1);
      await w.shoot(pt, 'portal-subscription-error');

      // A corrected URL clears it.
      await pt.getByLabel('Receiver URL').fill(`${w.ok.url}/second`);
      await pt.getByRole('button', { name: 'Subscribe' }).click();
      await pt.locator('td', { hasText: `${w.ok.url}/second` }).waitFor();
      expect(await pt.locator('#error-url').textContent()).toBe('');
    },
  );

  it.skipIf(skipBrowser)(
    'Archive is always the last status button; taking a published list back to validated says it un-publishes',
    async () => {
      const w = await world();
      await w.publishedList('Erasmus Lyceum', 'vwo 4');
      const admin = w.h.asAdmin();
      const school = (await admin.get('/api/admin/v1/schools')).json<{ data: { identifier: string }[] }>().data[0];
      const draft = await admin.post('/api/admin/v1/lists', { school: school?.identifier, name: 'vwo 5', tags: [] });
      expect(draft.statusCode).toBe(201);
      const op = await w.operator();
      await section(op, 'Schools & lists', 'Schools & lists');
      const moves = (name: string) =>
        op.locator('.tree .row', { hasText: name }).locator('[data-move]').allTextContents();
      const published = await moves('vwo 4');
      const created = await moves('vwo 5');
      expect(published.at(-1)).toBe('Archive');
      expect(created.at(-1)).toBe('Archive');
      expect(published).toEqual(['Un-publish (back to validated)', 'Archive']);
      await op.locator('.tree .row', { hasText: 'vwo 4' }).locator('[data-move="validated"]').click();
      await op.getByText(/^List vwo 4 is now validated\./).waitFor();
      expect(w.dialogs.at(-1)).toBe(
        'confirm: Un-publish vwo 4? It leaves the public lists until it is published again.',
      );
    },
  );
});
