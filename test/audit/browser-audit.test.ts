import { beforeEach, expect, it } from 'vitest';
import { operator, publishedList, section, shoot, shop, useBrowserWorlds, type World } from '../e2e/support.js';
import { skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';

describeEachEngine('console: the audit log in a browser', (engine) => {
  const openWorldFor = useBrowserWorlds(engine);
  let w: World;
  beforeEach(async () => {
    w = await openWorldFor();
  }, 60_000);

  it.skipIf(skipBrowser)(
    'the Audit page lists who changed what and filters by action; a client page shows its History',
    async () => {
      const client = await shop(w);
      expect((await w.h.asAdmin().post(`/api/admin/v1/clients/${client.id}/secret`)).statusCode).toBe(200);
      await publishedList(w, 'Erasmus Lyceum', 'vwo 4');

      const op = await operator(w);
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
      await shoot(w, op, 'audit-page');

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
      await shoot(w, op, 'audit-client-history');
    },
    90_000,
  );
});
