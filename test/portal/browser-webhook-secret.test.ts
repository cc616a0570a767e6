/**
 * The partner finds the webhook secret: the Credentials page says where it went (shown only when
 * issued: to the operator at the client's creation, here after a rotation), a rotation shows the new
 * one there, and the Subscriptions page points to it.
 */
import { expect, it } from 'vitest';
import { section, useBrowserWorlds } from '../e2e/support.js';
import { skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';

describeEachEngine('the portal says where the webhook secret is', (engine) => {
  const world = useBrowserWorlds(engine);

  it.skipIf(skipBrowser)(
    'Credentials explains where the secret was shown, a rotation shows the new one, Subscriptions links there',
    async () => {
      const w = await world();
      const client = await w.shop();
      const pt = await w.partner(client);
      expect(await pt.locator('#webhook-secret-where').textContent()).toBe(
        'Where to find it: the webhook secret starts with whsec_ and is shown only when it is issued — to your operator when your client was created, beside the client secret, and here after a rotation. It cannot be shown again: ask your operator for it, or rotate it below and give the new one to your receiver.',
      );

      await pt.getByRole('button', { name: 'Rotate webhook secret' }).click();
      const shown = pt.locator('#webhook-secret-output .secret-value');
      await shown.waitFor();
      const stored = await w.h.database.db.kysely
        .selectFrom('clients')
        .select('webhook_secret')
        .where('id', '=', client.id)
        .executeTakeFirstOrThrow();
      expect(await shown.textContent()).toBe(stored.webhook_secret);
      expect(stored.webhook_secret).toMatch(/^whsec_/);
      expect(w.dialogs).toEqual(['confirm: Rotate your webhook secret?']);

      await section(pt, 'Subscriptions', 'Subscriptions');
      expect(await pt.locator('#signed-with').textContent()).toBe(
        'Every webhook to these receivers is signed with your webhook secret, so your receiver can check it came from us. Where to find the secret: Credentials.',
      );
      await w.shoot(pt, 'portal-subscriptions-secret-note');
      await pt.locator('#signed-with').getByRole('link', { name: 'Credentials' }).click();
      await pt.locator('main > section h1', { hasText: 'Credentials' }).waitFor();
      expect(new URL(pt.url()).pathname).toBe('/portal/credentials');
      await w.shoot(pt, 'portal-credentials-webhook-secret');
    },
    90_000,
  );
});
