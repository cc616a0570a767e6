/**
 * The operator console and the partner portal in a real browser (Debian's Chromium via
 * playwright-core) against a real listening instance with a running delivery worker and loopback
 * webhook receivers: the operator signs in and creates a client and its portal link, the partner opens
 * the link in a browser of its own, resets its secret and subscribes, the operator publishes a list, the
 * partner follows the deliveries and retries a failed one. Also: hostile names render as text, state
 * changes without the CSRF token are refused, used and expired links are refused, another client's ids
 * answer 404, and no test leaves an error in a browser console. Screenshots of every main page at 1280
 * and 390 px go to test-artifacts/screenshots.
 *
 * Each test stands alone: it gets an instance of its own (test/e2e/support.ts) and makes the data it
 * needs, through the API where that is not what it tests, so one failing test hides no other. Only the
 * Chromium process is shared; every page lives in a browser context (a fresh profile) of its own.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { addSubscription, emit } from '../delivery/support.js';
import { skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, basic } from '../support/harness.js';
import { HOSTILE, section, useBrowserWorldEachTest, type World } from './support.js';

describeEachEngine('browser end to end', (engine) => {
  let w: World;
  useBrowserWorldEachTest(engine, (world) => {
    w = world;
  });

  it.skipIf(skipBrowser)(
    'the operator signs in with the admin token (refused when wrong) and lands on the overview',
    async () => {
      const op = await w.page('operator');
      await op.goto(`${w.base}/dashboard`);
      await op.getByRole('heading', { name: 'Sign in' }).waitFor();
      await w.expectingRefusals(async () => {
        await op.getByLabel('Admin token').fill('wrong-token-0123456789');
        await op.getByRole('button', { name: 'Sign in' }).click();
        await op.getByText('The admin token was refused.').waitFor();
      });
      await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await op.getByRole('button', { name: 'Sign in' }).click();
      await op.locator('main h1', { hasText: 'Overview' }).waitFor();
      await op.locator('figure.chart svg').waitFor();
      // The token became an HttpOnly cookie: nothing in storage, nothing readable by the page.
      expect(await op.evaluate('[localStorage.length, sessionStorage.length, document.cookie]')).toEqual([0, 0, '']);
      const cookies = await op.context().cookies();
      expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([['shelfmark_console', true, 'Strict']]);
      // Keyboard: from the top of the page, Tab reaches the navigation and Enter opens a section.
      await op.evaluate('document.activeElement && document.activeElement.blur()');
      const reached: string[] = [];
      for (let i = 0; i < 10 && !reached.includes('Clients'); i++) {
        await op.keyboard.press('Tab');
        reached.push(String(await op.evaluate('document.activeElement.textContent')));
      }
      expect(reached).toContain('Clients');
      await op.keyboard.press('Enter');
      await op.locator('main h1', { hasText: 'API clients' }).waitFor();
    },
  );

  it.skipIf(skipBrowser)('creates a client (secrets shown once) and a portal link for it', async () => {
    const op = await w.operator();
    const clientName = `Boekhandel Noord ${engine}`;
    await section(op, 'Clients', 'API clients');
    await op.getByText('No clients yet').waitFor();
    await op.getByLabel('New client name').fill(clientName);
    await op.getByRole('button', { name: 'Create client' }).click();
    await op.getByText(`Client ${clientName} created; its secrets are shown below, once.`).waitFor();
    const secretBox = op.locator('.secret', { hasText: 'Client secret of' });
    await secretBox.getByText('you will not see this again').waitFor();
    expect((await secretBox.locator('.secret-value').textContent()) ?? '').toMatch(/^sms_/);
    const clientId =
      (await op.locator('tr', { hasText: clientName }).locator('td[data-label="Client ID"]').textContent()) ?? '';
    expect(clientId).toMatch(/^smc_/);

    await op.locator('tr', { hasText: clientName }).getByRole('button', { name: 'Portal link' }).click();
    const linkBox = op.locator('.secret', { hasText: 'Portal sign-in link' });
    const portalUrl = (await linkBox.locator('.secret-value').textContent()) ?? '';
    expect(portalUrl).toMatch(new RegExp(`^${w.base}/portal/sign-in#[A-Za-z0-9_-]{43}$`));
    await w.shoot(op, 'console-clients');
  });

  it.skipIf(skipBrowser)(
    'the partner opens the link in its own browser; a used link is refused afterwards',
    async () => {
      const client = await w.shop();
      const link = `${w.base}${await w.portalLink(client)}`;
      const pt = await w.page('partner');
      await pt.goto(link);
      await pt.locator('main h1', { hasText: 'Credentials' }).waitFor();
      expect(await pt.locator('#client-id').textContent()).toBe(client.clientId);
      expect(pt.url()).toBe(`${w.base}/portal`);
      expect((await pt.context().cookies()).map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([
        ['shelfmark_portal', true, 'Strict'],
      ]);

      const third = await w.page('third');
      await w.expectingRefusals(async () => {
        await third.goto(link);
        await third.getByText('This sign-in link is invalid, already used or expired').waitFor();
      });
    },
  );

  it.skipIf(skipBrowser)(
    'the partner resets its secret; a token minted with the old one is refused at once',
    async () => {
      const client = await w.shop();
      const { clientId, clientSecret: firstSecret } = client;
      const pt = await w.partner(client);
      const minted = await fetch(`${w.base}/api/auth/token`, {
        headers: { authorization: basic(clientId, firstSecret) },
      });
      expect(minted.status).toBe(200);
      const oldToken = ((await minted.json()) as { access_token: string }).access_token;
      const subscriptions = `${w.base}/api/lml/v1/subscriptions`;
      expect((await fetch(subscriptions, { headers: { authorization: `Bearer ${oldToken}` } })).status).toBe(200);

      await pt.getByRole('button', { name: 'Reset client secret' }).click();
      await pt.getByText('New client secret issued; the old one no longer works.').waitFor();
      const box = pt.locator('.secret', { hasText: 'New client secret' });
      await box.getByText('you will not see this again').waitFor();
      await box.getByRole('button', { name: 'Copy' }).waitFor();
      const newSecret = (await box.locator('.secret-value').textContent()) ?? '';
      expect(newSecret).toMatch(/^sms_/);
      expect(newSecret).not.toBe(firstSecret);
      expect(w.dialogs.at(-1)).toMatch(/^confirm: Reset your client secret\?/);

      expect((await fetch(subscriptions, { headers: { authorization: `Bearer ${oldToken}` } })).status).toBe(401);
      const token = (secret: string) =>
        fetch(`${w.base}/api/auth/token`, { headers: { authorization: basic(clientId, secret) } });
      expect((await token(firstSecret)).status).toBe(401);
      expect((await token(newSecret)).status).toBe(200);
      await w.shoot(pt, 'portal-credentials');
    },
  );

  it.skipIf(skipBrowser)(
    'after a secret reset the "tokens minted before" line is current and each new secret shows under its own button',
    async () => {
      const pt = await w.partner(await w.shop());
      await pt.getByRole('button', { name: 'Reset client secret' }).click();
      await pt.getByText('New client secret issued; the old one no longer works.').waitFor();
      // The reset happened on this page: the line must show the new cut-off.
      const session = (await pt.evaluate(async () => (await fetch('/portal/api/session')).json())) as {
        client: { tokensValidAfter: string };
      };
      expect(await pt.locator('#tokens-valid-after time').getAttribute('datetime')).toBe(
        session.client.tokensValidAfter,
      );
      // The new client secret sits right after the button that made it, not under the webhook section.
      expect(await pt.evaluate("document.getElementById('reset-secret').nextElementSibling.id")).toBe(
        'client-secret-output',
      );
      await pt.locator('#client-secret-output .secret', { hasText: 'New client secret' }).waitFor();
      await pt.getByRole('button', { name: 'Rotate webhook secret' }).click();
      await pt.locator('#webhook-secret-output .secret', { hasText: 'New webhook secret' }).waitFor();
      expect(await pt.evaluate("document.getElementById('rotate-webhook-secret').nextElementSibling.id")).toBe(
        'webhook-secret-output',
      );
      await w.shoot(pt, 'portal-credentials-secrets');
    },
  );

  it.skipIf(skipBrowser)('the partner subscribes loopback receivers; bad input is reported inline', async () => {
    const pt = await w.partner(await w.shop());
    await section(pt, 'Subscriptions', 'Subscriptions');
    await pt.getByText('No subscriptions yet').waitFor();
    await w.expectingRefusals(async () => {
      await pt.getByLabel('Receiver URL').fill('ftp://files.example/hook');
      await pt.getByRole('button', { name: 'Subscribe' }).click();
      await pt.locator('.field-error', { hasText: /http/ }).waitFor();
    });
    for (const url of [w.ok.url, w.flaky.url]) {
      await pt.getByLabel('Receiver URL').fill(url);
      await pt.getByRole('button', { name: 'Subscribe' }).click();
      await pt.locator('td', { hasText: url }).waitFor();
    }
    expect(await pt.locator('tbody tr').count()).toBe(2);
    await w.shoot(pt, 'portal-subscriptions');
  });

  it.skipIf(skipBrowser)('an ftp:// receiver is refused with one clear sentence', async () => {
    const pt = await w.partner(await w.shop());
    await section(pt, 'Subscriptions', 'Subscriptions');
    await w.expectingRefusals(async () => {
      await pt.getByLabel('Receiver URL').fill('ftp://files.example/hook');
      await pt.getByRole('button', { name: 'Subscribe' }).click();
      await pt.locator('.field-error', { hasText: /http/ }).waitFor();
    });
    // Named by the field's label, under the field.
    expect(await pt.locator('#error-url').textContent()).toBe('Receiver URL must use http or https, not ftp');
    await pt.getByLabel('Receiver URL').fill('');
  });

  it.skipIf(skipBrowser)(
    'a school with a hostile name renders as text; the operator publishes its list and sees the events',
    async () => {
      const op = await w.operator();
      const school = await w.h
        .asAdmin()
        .post('/api/admin/v1/schools', { name: HOSTILE, type: 'HBO', location: 'Amsterdam' });
      expect(school.statusCode).toBe(201);
      await section(op, 'Schools & lists', 'Schools & lists');
      await op.getByLabel('List name').fill('ICT jaar 1');
      await op.getByLabel('Tags (comma-separated levels)').fill('Amsterdam, 2026-2027');
      await op.getByRole('button', { name: 'Create list' }).click();
      await op.getByText('Events emitted: list.created, list.status.').waitFor();
      await op.locator('.tree li', { hasText: 'ICT jaar 1' }).getByRole('button', { name: 'Publish' }).click();
      await op.getByText('List ICT jaar 1 is now published. Events emitted: list.status, list.published.').waitFor();
      await op.locator('.tree .badge.published').waitFor();
      // School → tags → list, as the tree of the specification.
      expect(await op.locator('.tree li li > span.muted').allTextContents()).toEqual(['Amsterdam', '2026-2027']);

      expect(await op.locator('.tree strong').allTextContents()).toContain(HOSTILE);
      expect(await op.locator(`option:text-is("${HOSTILE}")`).count()).toBe(1);
      expect(await op.locator('main img').count()).toBe(0);
      await w.shoot(op, 'console-lists');
    },
  );

  it.skipIf(skipBrowser)(
    'the partner sees the delivery and its attempt; retries the failed one from the portal',
    async () => {
      const client = await w.shop();
      await w.subscribeReceivers(client);
      const pt = await w.partner(client);
      await w.publishedList();
      await w.ok.waitFor(1, 10_000);
      await w.flaky.waitFor(1, 10_000);
      await section(pt, 'Deliveries', 'Deliveries');
      // The failed delivery is final at once (no retry schedule in this test): wait for both outcomes.
      await expect
        .poll(
          async () => {
            await section(pt, 'Deliveries', 'Deliveries');
            return (await pt.locator('td[data-label="Outcome"]').allTextContents()).sort();
          },
          { timeout: 20_000 },
        )
        .toEqual(['failed · not delivered (HTTP 500)', 'succeeded · delivered']);

      const okRow = pt.locator('tr', { hasText: w.ok.url });
      await okRow.getByRole('button', { name: 'Attempts' }).click();
      const detail = pt.locator('#delivery-detail');
      await detail.getByText('succeeded · HTTP 200').waitFor();
      expect(await detail.locator('pre.headers').textContent()).toContain('webhook-signature: •••••••• (masked)');
      expect(await detail.locator('code.excerpt').textContent()).toBe('thanks');
      expect(await detail.locator('h2').textContent()).toBe(`List published: ICT jaar 1 (${HOSTILE})`);

      w.flakyUp = true;
      await pt.locator('tr', { hasText: w.flaky.url }).getByRole('button', { name: 'Retry' }).click();
      await pt.getByText('Retry delivery: queued again; the worker sends it within seconds.').waitFor();
      await w.flaky.waitFor(2, 10_000);
      await expect
        .poll(
          async () => {
            await section(pt, 'Deliveries', 'Deliveries');
            return pt.locator('tr', { hasText: w.flaky.url }).locator('td[data-label="Outcome"]').textContent();
          },
          { timeout: 20_000 },
        )
        .toBe('succeeded · delivered');
      await pt.locator('tr', { hasText: w.flaky.url }).getByRole('button', { name: 'Attempts' }).click();
      await expect.poll(() => detail.locator('tbody tr').count()).toBe(2);
      await w.shoot(pt, 'portal-deliveries');
    },
  );

  /** A partner whose flaky receiver's delivery of a published list has failed once. */
  async function failedOnce(): Promise<Page> {
    const client = await w.shop();
    await w.subscribeReceivers(client);
    const pt = await w.partner(client);
    await w.publishedList();
    await w.flaky.waitFor(1, 10_000);
    return pt;
  }

  it.skipIf(skipBrowser)(
    'a delivery waiting for its retry reads "pending · retrying · next attempt in …", the exact time on hover',
    async () => {
      const pt = await failedOnce();
      const next = w.h.clock.now() + 5 * 60_000;
      await w.setFlakyDelivery({ status: 'pending', nextAttemptAt: next });
      await section(pt, 'Deliveries', 'Deliveries');
      const cell = pt.locator('tr', { hasText: w.flaky.url }).locator('td[data-label="Outcome"]');
      expect(await cell.textContent()).toMatch(/^pending · retrying · next attempt in [45] min$/);
      const iso = new Date(next).toISOString();
      expect(await cell.locator('time').getAttribute('datetime')).toBe(iso);
      expect(await cell.locator('time').getAttribute('title')).toContain(`(${iso})`);
      await w.shoot(pt, 'portal-deliveries-retrying');
    },
  );

  it.skipIf(skipBrowser)(
    'Retry now sends a delivery waiting for its retry at once; after Retry (now) its attempts open',
    async () => {
      const pt = await failedOnce();
      w.flakyUp = true;
      const row = () => pt.locator('tr', { hasText: w.flaky.url });
      const detail = pt.locator('#delivery-detail');
      // Waiting for its next attempt: "Retry now" moves that attempt to now (same webhook-id).
      const id = await w.setFlakyDelivery({ status: 'pending', nextAttemptAt: w.h.clock.now() + 5 * 60_000 });
      await section(pt, 'Deliveries', 'Deliveries');
      expect(await detail.textContent()).toBe('');
      await row().getByRole('button', { name: 'Retry now' }).click();
      await pt.getByText('Retry now: succeeded · delivered (HTTP 200).').waitFor();
      await w.flaky.waitFor(2, 10_000);
      // The attempts panel opens by itself, in the page as shown (not in a replaced element).
      await detail.locator('.panel .id', { hasText: id }).waitFor();
      expect(await detail.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
      await expect
        .poll(async () => {
          await section(pt, 'Deliveries', 'Deliveries');
          return row().locator('td[data-label="Outcome"]').textContent();
        })
        .toBe('succeeded · delivered');

      // A finished (failed) one: Retry, and again the attempts open.
      await w.setFlakyDelivery({ status: 'failed' });
      await section(pt, 'Deliveries', 'Deliveries');
      await row().getByRole('button', { name: 'Retry', exact: true }).click();
      await pt.getByText('Retry delivery: queued again; the worker sends it within seconds.').waitFor();
      await detail.locator('.panel .id', { hasText: id }).waitFor();
      await w.flaky.waitFor(3, 10_000);
    },
  );

  it.skipIf(skipBrowser)(
    'the hostile school name stays text on every console page; every page renders without errors',
    async () => {
      w.flakyUp = true;
      await w.subscribeReceivers(await w.shop());
      await w.publishedList();
      await w.ok.waitFor(1, 10_000);
      await w.flaky.waitFor(1, 10_000);
      const op = await w.operator();
      for (const [name, heading] of [
        ['Overview', 'Overview'],
        ['Clients', 'API clients'],
        ['Schools & lists', 'Schools & lists'],
        ['Offers', 'Offers'],
        ['Subscriptions', 'Webhook subscriptions'],
        ['Deliveries', 'Delivery log'],
      ] as const) {
        await section(op, name, heading);
        expect(await op.locator('main img').count(), name).toBe(0);
        expect(
          await op
            .locator('main td, main li')
            .filter({ hasText: /^\{|\[/ })
            .count(),
          `${name} shows raw JSON`,
        ).toBe(0);
        await w.shoot(op, `console-${name.toLowerCase().replace(/[^a-z]+/g, '-')}`, () => section(op, name, heading));
      }
      await section(op, 'Schools & lists', 'Schools & lists');
      expect(await op.getByText(HOSTILE, { exact: true }).count()).toBeGreaterThan(0);
      expect(w.dialogs.filter((d) => d.startsWith('alert'))).toEqual([]);
      const overview = await w.h.asAdmin().get('/api/admin/v1/overview');
      expect(overview.json()).toMatchObject({ clients: 1, subscriptions: 2, publishedLists: 1, failedLast24h: 0 });
    },
  );

  it.skipIf(skipBrowser)('the console delivery log names the list and its school an event was about', async () => {
    await w.subscribeReceivers(await w.shop());
    await w.publishedList();
    await w.ok.waitFor(1, 10_000);
    const op = await w.operator();
    await section(op, 'Deliveries', 'Delivery log');
    const rows = op.locator('main tr', { hasText: 'List published' });
    await rows.first().waitFor();
    // The school's hostile name is shown as text beside the list's name, never as markup.
    expect(await rows.first().locator('td').nth(4).textContent()).toBe(`ICT jaar 1 (${HOSTILE})`);
    expect(await op.locator('main img').count()).toBe(0);
  });

  it.skipIf(skipBrowser)(
    'archived lists show greyed behind a toggle, with their way back (archived → created)',
    async () => {
      const admin = w.h.asAdmin();
      const made = await admin.post('/api/admin/v1/schools', { name: HOSTILE, type: 'HBO', location: 'Amsterdam' });
      const school = made.json<{ identifier: string }>().identifier;
      const created = await admin.post('/api/admin/v1/lists', { school, name: 'Old list 2025', tags: [] });
      expect(created.statusCode).toBe(201);
      const list = created.json<{ identifier: string }>().identifier;
      const archived = await admin.post(`/api/admin/v1/lists/${list}/status`, { status: 'archived' });
      expect(archived.statusCode).toBe(200);

      const op = await w.operator();
      await section(op, 'Schools & lists', 'Schools & lists');
      await op.locator('.tree').waitFor();
      expect(await op.locator('.tree', { hasText: 'Old list 2025' }).count()).toBe(0);
      await op.getByLabel('Show archived lists').check();
      const row = op.locator('.tree .row.archived', { hasText: 'Old list 2025' });
      await row.waitFor();
      expect(await row.locator('.badge').getAttribute('data-state')).toBe('archived');
      expect(await row.getByRole('button').allTextContents()).toEqual(['Rename', 'Restore as draft']);
      await w.shoot(op, 'console-lists-archived');
      await row.getByRole('button', { name: 'Restore as draft' }).click();
      await op.getByText('List Old list 2025 is now created. Events emitted: list.status.').waitFor();
      const restored = op.locator('.tree .row', { hasText: 'Old list 2025' });
      expect(await restored.locator('.badge').getAttribute('data-state')).toBe('created');
      expect(await restored.getAttribute('class')).toBe('row');
      expect(await op.getByLabel('Show archived lists').isChecked()).toBe(true);
    },
  );

  it.skipIf(skipBrowser)('state changes without the CSRF token are refused, from either page', async () => {
    const op = await w.operator();
    const pt = await w.partner(await w.shop());
    const statuses = await w.expectingRefusals(async () => [
      await op.evaluate(
        async () =>
          (
            await fetch('/api/admin/v1/clients', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{"name":"csrf"}',
            })
          ).status,
      ),
      await pt.evaluate(async () => (await fetch('/portal/api/secret', { method: 'POST' })).status),
    ]);
    expect(statuses).toEqual([403, 403]);
    const names = (await w.h.asAdmin().get('/api/admin/v1/clients'))
      .json<{ data: { name: string }[] }>()
      .data.map((c) => c.name);
    expect(names).not.toContain('csrf');
  });

  it.skipIf(skipBrowser)("the partner cannot reach another client's subscription", async () => {
    const { h } = w;
    const pt = await w.partner(await w.shop());
    const other = await h.asAdmin().post('/api/admin/v1/clients', { name: 'Other shop' });
    const theirs = await addSubscription(
      h.database.db,
      other.json<{ id: string }>().id,
      'http://127.0.0.1:9/theirs',
      h.clock.now(),
    );
    await emit(h.database.db, h.clock.now());
    const statuses = await w.expectingRefusals(() =>
      pt.evaluate(async (id) => {
        const { csrfToken } = (await (await fetch('/portal/api/session')).json()) as { csrfToken: string };
        const headers = { 'x-csrf-token': csrfToken };
        return [
          (await fetch(`/portal/api/subscriptions/${id}/ping`, { method: 'POST', headers })).status,
          (await fetch(`/portal/api/subscriptions/${id}`, { method: 'DELETE', headers })).status,
          (await fetch(`/portal/api/subscriptions/${id}/enable`, { method: 'POST', headers })).status,
        ];
      }, theirs),
    );
    expect(statuses).toEqual([404, 404, 404]);
    const listed = await pt.evaluate(async () =>
      (
        (await (await fetch('/portal/api/deliveries?limit=100')).json()) as { data: { subscriptionId: string }[] }
      ).data.map((d) => d.subscriptionId),
    );
    expect(listed).not.toContain(theirs);
    expect(
      await h.database.db.kysely.selectFrom('subscriptions').select('id').where('id', '=', theirs).execute(),
    ).toHaveLength(1);
  });

  it.skipIf(skipBrowser)('an expired portal link is refused', async () => {
    await w.shop(`Boekhandel Oost ${engine}`);
    const op = await w.operator();
    await section(op, 'Clients', 'API clients');
    await op
      .locator('tr', { hasText: `Boekhandel Oost ${engine}` })
      .getByRole('button', { name: 'Portal link' })
      .click();
    const link =
      (await op.locator('.secret', { hasText: 'Portal sign-in link' }).locator('.secret-value').textContent()) ?? '';
    w.offset += 15 * 60 * 1000 + 1000;
    await new Promise((resolve) => setTimeout(resolve, 120));
    const late = await w.page('late');
    await w.expectingRefusals(async () => {
      await late.goto(link);
      await late.getByText('This sign-in link is invalid, already used or expired').waitFor();
    });
  });
});
