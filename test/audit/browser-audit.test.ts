/**
 * The audit log and the History panels in a browser: records name what they are about (linked to
 * its page), show times as the rest of the console does, and the Audit page pages 20 at a time.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { section, useBrowserWorldEachTest, type World } from '../e2e/support.js';
import { skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';

describeEachEngine('console: the audit log in a browser', (engine) => {
  let w: World;
  useBrowserWorldEachTest(engine, (world) => {
    w = world;
  });

  it.skipIf(skipBrowser)(
    'the Audit page lists who changed what and filters by action; a client page shows its History',
    async () => {
      const client = await w.shop();
      expect((await w.h.asAdmin().post(`/api/admin/v1/clients/${client.id}/secret`)).statusCode).toBe(200);
      await w.publishedList('Erasmus Lyceum', 'vwo 4');

      const op = await w.operator();
      await section(op, 'Audit', 'Audit log');
      const rows = op.locator('main > section tbody tr');
      await expect.poll(() => rows.count()).toBe(5);
      const text = (await op.locator('main > section table').textContent()) ?? '';
      for (const action of [
        'client.created',
        'client.secret.reset',
        'school.created',
        'list.created',
        'list.status.changed',
      ])
        expect(text).toContain(action);
      expect(text).toContain('admin token (admin)');
      expect(text).toContain('clientSecret: rotated');
      await w.shoot(op, 'audit-page');

      await op.getByLabel('Action').selectOption('client.secret.reset');
      await op.getByRole('button', { name: 'Filter' }).click();
      await op.waitForURL(/\/dashboard\/audit\?action=client\.secret\.reset/);
      await expect.poll(() => rows.count()).toBe(1);
      expect(await rows.first().textContent()).toContain('client.secret.reset');

      await section(op, 'Clients', 'API clients');
      await op
        .locator('main > section')
        .getByRole('link', { name: `Boekhandel Noord ${engine}` })
        .first()
        .click();
      const history = op.getByRole('region', { name: 'History' });
      await history.locator('tbody tr').first().waitFor();
      expect(await history.locator('tbody tr').count()).toBe(2); // newest first: the reset, then the creation
      const first = (await history.locator('tbody tr').first().textContent()) ?? '';
      expect(first).toContain('client.secret.reset');
      await w.shoot(op, 'audit-client-history');
    },
    90_000,
  );

  /** The rows of the Audit page's table, as text, and how many there are. */
  const rowTexts = (op: Page) => op.locator('main > section tbody tr').allTextContents();

  it.skipIf(skipBrowser)(
    'records name the client, the school, the list and the partner, linked to their pages, with times as times',
    async () => {
      const client = await w.shop();
      const list = await w.publishedList('Erasmus Lyceum', 'vwo 4');
      await w.subscribeReceivers(client);
      expect((await w.h.asAdmin().post(`/api/admin/v1/clients/${client.id}/secret`)).statusCode).toBe(200);
      const subscription = (await w.h.asAdmin().get('/api/admin/v1/subscriptions', { query: { clientId: client.id } }))
        .json<{ data: { id: string; notificationUrl: string }[] }>()
        .data.find((s) => s.notificationUrl === w.ok.url);
      const name = `Boekhandel Noord ${engine}`;

      const op = await w.operator();
      await section(op, 'Audit', 'Audit log');
      const row = (action: string) => op.locator('main > section tbody tr', { hasText: action });
      const cell = (action: string, label: string) => row(action).first().locator(`td[data-label="${label}"]`);
      // The target by name, linked to its page; and to its records.
      const clientTarget = cell('client.created', 'Target');
      expect(await clientTarget.textContent()).toBe(`${name}its records`);
      expect(await clientTarget.getByRole('link', { name }).getAttribute('href')).toBe(
        `/dashboard/clients/${client.id}`,
      );
      expect(
        await cell('list.created', 'Target').getByRole('link', { name: 'vwo 4 (Erasmus Lyceum)' }).getAttribute('href'),
      ).toBe(`/dashboard/lists/${list}`);
      expect(await cell('school.created', 'Target').textContent()).toBe('Erasmus Lyceumits records');
      // A list's school by name, not by its identifier.
      expect(await cell('list.created', 'Changes').locator('li', { hasText: 'school' }).textContent()).toBe(
        'school: Erasmus Lyceum',
      );
      // The partner that subscribed, by name and linked; the subscription by its client and event.
      const who = cell('subscription.created', 'Who');
      expect(await who.textContent()).toBe(`partner ${name}127.0.0.1`);
      expect(await who.getByRole('link').getAttribute('href')).toBe(`/dashboard/clients/${client.id}`);
      expect(
        await cell('subscription.created', 'Target')
          .getByRole('link', { name: `${name} → list.published` })
          .first()
          .getAttribute('href'),
      ).toMatch(/^\/dashboard\/subscriptions\/sub_/);
      // A time in the changes is a time, as everywhere in the console: relative, exact on hover.
      const validAfter = cell('client.secret.reset', 'Changes').locator('li', { hasText: 'tokensValidAfter' });
      expect(await validAfter.locator('time').count()).toBe(2);
      expect(await validAfter.locator('time').nth(1).textContent()).toMatch(/^(now|\d+ seconds? ago)$/);
      expect(await validAfter.locator('time').nth(1).getAttribute('title')).toMatch(/\(20\d\d-\d\d-\d\dT[\d:.]+Z\)$/);
      await w.shoot(op, 'audit-named');

      // The subscription's History names its client and links it.
      await op.goto(`${w.base}/dashboard/subscriptions/${subscription?.id}`);
      const history = op.getByRole('region', { name: 'History' });
      await history.locator('tbody tr').first().waitFor();
      expect(await history.locator('td[data-label="Changes"] li', { hasText: 'client' }).textContent()).toBe(
        `client: ${name}`,
      );
      expect(await history.getByRole('link', { name }).first().getAttribute('href')).toBe(
        `/dashboard/clients/${client.id}`,
      );
    },
    90_000,
  );

  it.skipIf(skipBrowser)(
    'the Audit page shows 20 records a page, with older and newer pages above and below them',
    async () => {
      for (let i = 1; i <= 25; i++)
        expect(
          (await w.h.asAdmin().post('/api/admin/v1/schools', { name: `School ${i}`, type: 'VO' })).statusCode,
        ).toBe(201);
      const op = await w.operator();
      await section(op, 'Audit', 'Audit log');
      const pager = op.locator('main > section nav.pager');
      expect(await rowTexts(op)).toHaveLength(20);
      expect((await rowTexts(op))[0]).toContain('School 25');
      expect(await pager.count()).toBe(2);
      expect(await pager.first().textContent()).toBe('Older records →');
      // A page of 20, not every record: a few screens on a desktop, a phone's cards in one long scroll.
      const height = () => op.evaluate('document.documentElement.scrollHeight') as Promise<number>;
      expect(await height()).toBeLessThan(2500);
      await op.setViewportSize({ width: 390, height: 844 });
      expect(await height()).toBeLessThan(7000);
      await op.setViewportSize({ width: 1280, height: 900 });

      await pager.first().getByRole('link', { name: 'Older records →' }).click();
      await op.waitForURL(/\/dashboard\/audit\?after=aud_/);
      await expect.poll(async () => (await rowTexts(op))[0]).toContain('School 5');
      expect(await rowTexts(op)).toHaveLength(5);
      expect(await pager.last().textContent()).toBe('← Newer records');
      await w.shoot(op, 'audit-older-page');

      await pager.last().getByRole('link', { name: '← Newer records' }).click();
      await op.waitForURL(/\/dashboard\/audit\?before=aud_/);
      await expect.poll(async () => (await rowTexts(op))[0]).toContain('School 25');
      expect(await rowTexts(op)).toHaveLength(20);
      // The newest page again: nothing newer.
      expect(await pager.first().textContent()).toBe('Older records →');
    },
    90_000,
  );

  it.skipIf(skipBrowser)(
    'a History panel shows the newest 20 records and leads to the older ones on the Audit page',
    async () => {
      const client = await w.shop();
      for (let i = 0; i < 20; i++)
        expect((await w.h.asAdmin().post(`/api/admin/v1/clients/${client.id}/secret`)).statusCode).toBe(200);
      const op = await w.operator();
      await op.goto(`${w.base}/dashboard/clients/${client.id}`);
      const history = op.getByRole('region', { name: 'History' });
      await history.locator('tbody tr').first().waitFor();
      expect(await history.locator('tbody tr').count()).toBe(20);
      const older = history.getByRole('link', { name: 'Older records on the Audit page →' });
      expect(await older.getAttribute('href')).toBe(`/dashboard/audit?targetType=client&targetId=${client.id}`);
      await older.click();
      await op.locator('main > section:not([data-stale]) h1', { hasText: 'Audit log' }).waitFor();
      await expect.poll(() => rowTexts(op)).toHaveLength(20);
      await op.locator('main > section nav.pager').first().getByRole('link', { name: 'Older records →' }).click();
      // The 21st: the client's creation.
      await expect.poll(() => rowTexts(op)).toHaveLength(1);
      expect((await rowTexts(op))[0]).toContain('client.created');
    },
    90_000,
  );
});
