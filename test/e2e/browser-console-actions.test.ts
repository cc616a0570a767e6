/**
 * In a real browser: the operator can do what the partner can. The console
 * shows a delivery waiting to retry with its next attempt and offers Retry now through the control the
 * portal uses too, and a disabled Retry always says why; it subscribes a client with the
 * portal's own form, filters included, edits a list's items with the list's own validation shown
 * inline, asks before publishing an empty list, and shows offers with their identifier, Withdraw and
 * Delete. Each test drives a listening instance with a running worker (support.ts) and checks
 * what the page shows and the rows or API state that result.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { section, useBrowserWorldEachTest, type World } from './support.js';

const MATH = '9789001891442';
const ENGLISH = '9780194837125';

describeEachEngine('console actions', (engine) => {
  let w: World;
  useBrowserWorldEachTest(engine, (world) => {
    w = world;
  });

  const db = () => w.h.database.db.kysely;
  const admin = () => w.h.asAdmin();

  /** The flaky receiver's first delivery has failed once and waits five minutes for its retry. */
  async function waitingDelivery(): Promise<{ id: string; next: number }> {
    await w.subscribeReceivers(await w.shop());
    await w.publishedList();
    await w.flaky.waitFor(1, 10_000);
    const next = w.h.clock.now() + 5 * 60_000;
    const id = await w.setFlakyDelivery({ status: 'pending', nextAttemptAt: next });
    await db().updateTable('deliveries').set({ attempt_count: 1 }).where('id', '=', id).execute();
    return { id, next };
  }

  /** Every disabled button on the page with the text of what it points to for its reason. */
  const disabledButtons = (page: Page) =>
    page.evaluate(`[...document.querySelectorAll('main button[disabled]')].map((b) => {
      const reason = document.getElementById(b.getAttribute('aria-describedby') || '');
      return [b.textContent, reason && reason.offsetParent !== null ? reason.textContent : null];
    })`) as Promise<[string, string | null][]>;

  it.skipIf(skipBrowser)(
    'the console shows when a waiting delivery is retried next and Retry now sends it at once, same delivery',
    async () => {
      const { id, next } = await waitingDelivery();
      const op = await w.operator();
      await section(op, 'Deliveries', 'Delivery log');
      const row = op.locator('main tr', { hasText: w.flaky.url });
      const cell = row.locator('td[data-label="Outcome"]');
      expect(await cell.textContent()).toMatch(/ · next attempt in [45] min$/);
      expect(await cell.locator('time.next-attempt').getAttribute('datetime')).toBe(new Date(next).toISOString());
      const retryNow = row.getByRole('button', { name: 'Retry now' });
      expect(await retryNow.isEnabled()).toBe(true);
      await w.shoot(op, 'console-deliveries-retry-now');

      // The receiver is still down: the notice says how the attempt went, and the schedule stays.
      await retryNow.click();
      await op.getByText(/^Retry now: failed \(HTTP 500\)\. The next automatic attempt stays in [45] min\.$/).waitFor();
      expect(await op.locator('#notice').getAttribute('class')).toBe('error');
      // The delivery's own page opens, with the attempt just made.
      await op.waitForURL(`${w.base}/dashboard/deliveries/${id}`);
      await op.locator('main h1', { hasText: 'List published' }).waitFor();
      await expect.poll(() => op.locator('main tbody tr').count()).toBe(2);
      const nextAttempt = () =>
        db()
          .selectFrom('deliveries')
          .select(['status', 'next_attempt_at'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
      expect(await nextAttempt()).toEqual({ status: 'pending', next_attempt_at: next });

      w.flakyUp = true;
      await op.locator('main dd').getByRole('button', { name: 'Retry now' }).click();
      await op.getByText('Retry now: succeeded · delivered (HTTP 200).').waitFor();
      expect(await op.locator('#notice').getAttribute('class')).toBe('ok');
      await expect.poll(() => op.locator('main tbody tr').count()).toBe(3);
      expect(await op.locator('main dd.outcome .badge').getAttribute('data-state')).toBe('succeeded');
      // The same delivery (webhook-id) was sent each time: one row, succeeded, with its three attempts.
      const rows = await db()
        .selectFrom('deliveries')
        .innerJoin('subscriptions', 'subscriptions.id', 'deliveries.subscription_id')
        .select(['deliveries.id', 'deliveries.status'])
        .where('subscriptions.notification_url', '=', w.flaky.url)
        .execute();
      expect(rows).toEqual([{ id, status: 'succeeded' }]);
      const attempts = await db()
        .selectFrom('delivery_attempts')
        .select('status_code')
        .where('delivery_id', '=', id)
        .execute();
      expect(attempts.map((attempt) => attempt.status_code).sort()).toEqual([200, 500, 500]);
      expect(w.flaky.received.map((request) => request.headers['webhook-id'])).toEqual([id, id, id]);
      await w.shoot(op, 'console-delivery-detail');
    },
  );

  it.skipIf(skipBrowser)(
    'a disabled Retry says why, in the console and the portal alike (one shared control)',
    async () => {
      const client = await w.shop();
      await w.subscribeReceivers(client);
      await w.publishedList();
      await w.flaky.waitFor(1, 10_000);
      const id = await w.setFlakyDelivery({ status: 'failed' });
      await db()
        .updateTable('subscriptions')
        .set({ status: 'disabled', disabled_reason: 'the receiver answered 410 Gone' })
        .where('notification_url', '=', w.flaky.url)
        .execute();
      const why = 'the subscription is disabled: re-enable it first';

      const op = await w.operator();
      await section(op, 'Deliveries', 'Delivery log');
      const opRow = op.locator('main tr', { hasText: w.flaky.url });
      expect(await opRow.locator('.retry').textContent()).toBe(`Retry${why}`);
      // No disabled button anywhere on the log without a visible reason tied to it.
      const opDisabled = await disabledButtons(op);
      expect(opDisabled).toContainEqual(['Retry', why]);
      expect(opDisabled.filter(([, reason]) => !reason)).toEqual([]);
      // One control: the portal draws the same markup (but the reason's generated id).
      const markup = async (row: typeof opRow) =>
        (await row.locator('.retry').innerHTML()).replace(/retry-reason-\d+/g, 'id');
      const opMarkup = await markup(opRow);
      await opRow.getByRole('link', { name: 'Attempts' }).click();
      await op.waitForURL(`${w.base}/dashboard/deliveries/${id}`);
      expect(await op.locator('main dd .retry').textContent()).toBe(`Retry${why}`);
      await w.shoot(op, 'console-delivery-retry-disabled');

      const pt = await w.partner(client);
      await section(pt, 'Deliveries', 'Deliveries');
      const ptRow = pt.locator('main tr', { hasText: w.flaky.url });
      expect(await markup(ptRow)).toBe(opMarkup);
      expect((await disabledButtons(pt)).filter(([, reason]) => !reason)).toEqual([]);
      // A finished delivery of an active subscription offers Retry, enabled, on both.
      expect(
        await pt.locator('main tr', { hasText: w.ok.url }).getByRole('button', { name: 'Retry' }).isEnabled(),
      ).toBe(true);
    },
  );

  it.skipIf(skipBrowser)(
    "the operator subscribes a client with the portal's form, filters included; refusals show under their field",
    async () => {
      const client = await w.shop(`Boekhandel West ${engine}`);
      const op = await w.operator();
      await w.shop(`Boekhandel Oost ${engine}`);
      // From the client's row: the form opens with that client chosen, at an address of its own.
      await section(op, 'Clients', 'API clients');
      await op
        .locator('main tr', { hasText: `Boekhandel West ${engine}` })
        .getByRole('link', { name: 'Subscribe' })
        .click();
      await op.waitForURL(`${w.base}/dashboard/subscriptions?client=${client.id}`);
      const form = op.locator('form.subscription-form');
      expect(await form.getByLabel('Client').inputValue()).toBe(client.id);
      await w.expectingRefusals(async () => {
        await form.getByLabel('Receiver URL').fill('ftp://files.example/hook');
        await form.getByRole('button', { name: 'Subscribe client' }).click();
        await form.locator('#error-url', { hasText: 'Receiver URL must use http or https, not ftp' }).waitFor();
      });
      expect(await db().selectFrom('subscriptions').select('id').execute()).toEqual([]);

      await form.getByLabel('Receiver URL').fill(w.ok.url);
      await form.getByLabel('Event', { exact: true }).selectOption('offer.published');
      await form.getByLabel('Which offers').selectOption('eans');
      await form.getByLabel('EANs (comma-separated)').fill(`${MATH}, ${ENGLISH}`);
      // The form as the operator fills it: the refusal still under its field, the offer filter open.
      await w.shoot(op, 'console-subscriptions-new');
      await form.getByRole('button', { name: 'Subscribe client' }).click();
      await op.getByText(`Subscribed Boekhandel West ${engine} → ${w.ok.url}`).waitFor();
      const row = op.locator('main tr', { hasText: w.ok.url });
      expect(await row.locator('td[data-label="Client"]').textContent()).toBe(`Boekhandel West ${engine}`);
      expect(await row.locator('td[data-label="Event"]').textContent()).toBe(
        `Offer publishedonly 2 EANs: ${MATH}, ${ENGLISH}`,
      );
      expect(
        await db().selectFrom('subscriptions').select(['client_ref', 'notification_url', 'event', 'filter']).execute(),
      ).toEqual([
        {
          client_ref: client.id,
          notification_url: w.ok.url,
          event: 'offer.published',
          filter: JSON.stringify({ eans: [MATH, ENGLISH] }),
        },
      ]);

      // The portal's form is the same form: the same fields, in the same order, after the console's Client.
      const labels = (page: Page) =>
        page.evaluate(
          `[...document.querySelectorAll('form.subscription-form label.field > span:first-child')].map((s) => s.textContent)`,
        ) as Promise<string[]>;
      const pt = await w.partner(client);
      await section(pt, 'Subscriptions', 'Subscriptions');
      expect(await labels(op)).toEqual(['Client', ...(await labels(pt))]);
    },
  );

  it.skipIf(skipBrowser)(
    "a list's items: added, checked by the list's own validation inline, marked optional, reordered, removed; renamed in place",
    async () => {
      const made = await admin().post('/api/admin/v1/schools', { name: 'Erasmus Lyceum', type: 'VO' });
      const school = made.json<{ identifier: string }>().identifier;
      const created = await admin().post('/api/admin/v1/lists', { school, name: 'vwo 4', tags: ['2026-2027'] });
      const list = created.json<{ identifier: string }>().identifier;
      const items = async () =>
        (await admin().get(`/api/admin/v1/lists/${list}`))
          .json<{ items: { ean: string; title: string; mandatory: boolean }[] }>()
          .items.map((item) => [item.ean, item.title, item.mandatory]);

      const op = await w.operator();
      await section(op, 'Schools & lists', 'Schools & lists');
      await op.locator('.tree').getByRole('link', { name: 'vwo 4' }).click();
      await op.waitForURL(`${w.base}/dashboard/lists/${list}`);
      await op.locator('main h1', { hasText: 'vwo 4' }).waitFor();
      await op.getByText('No items yet').waitFor();

      const add = async (ean: string, title: string) => {
        const form = op.locator('form.add-item');
        await form.getByLabel('EAN/ISBN').fill(ean);
        await form.getByLabel('Title').fill(title);
        await form.getByRole('button', { name: 'Add item' }).click();
      };
      // A wrong check digit: the server's own check, shown in the form, nothing saved.
      await w.expectingRefusals(async () => {
        await add('9789001891443', 'Getal & Ruimte');
        await op
          .locator('form.add-item .field-error', { hasText: 'EAN 9789001891443: check digit should be 2' })
          .waitFor();
      });
      expect(await items()).toEqual([]);
      // What was typed stays in the form, to be corrected.
      expect(await op.locator('form.add-item').getByLabel('Title').inputValue()).toBe('Getal & Ruimte');

      await add(MATH, 'Getal & Ruimte');
      await op.getByText('Added Getal & Ruimte. Events emitted: list.updated.').waitFor();
      await add(ENGLISH, 'English File');
      await op.getByText('Added English File.', { exact: false }).waitFor();
      expect(await items()).toEqual([
        [MATH, 'Getal & Ruimte', true],
        [ENGLISH, 'English File', true],
      ]);
      // The same EAN twice: refused by the list, said inline.
      await w.expectingRefusals(async () => {
        await add(MATH, 'Getal & Ruimte again');
        await op.locator('form.add-item .field-error', { hasText: `EAN ${MATH} is already item 1` }).waitFor();
      });

      await op.getByLabel('Mandatory: English File').uncheck();
      await op.getByText('English File is now optional. Events emitted: list.updated.').waitFor();
      await op.locator('main tr', { hasText: 'English File' }).getByRole('button', { name: '↑ Up' }).click();
      await op.getByText('Moved English File up. Events emitted: list.updated.').waitFor();
      expect(await items()).toEqual([
        [ENGLISH, 'English File', false],
        [MATH, 'Getal & Ruimte', true],
      ]);
      expect(await op.locator('main td[data-label="Title"] strong').allTextContents()).toEqual([
        'English File',
        'Getal & Ruimte',
      ]);
      await w.shoot(op, 'console-list-detail');

      await op.locator('main tr', { hasText: 'Getal & Ruimte' }).getByRole('button', { name: 'Remove' }).click();
      await op.getByText('Removed Getal & Ruimte. Events emitted: list.updated.').waitFor();
      expect(w.dialogs.at(-1)).toBe('confirm: Remove Getal & Ruimte (9789001891442) from vwo 4?');
      expect(await items()).toEqual([[ENGLISH, 'English File', false]]);

      // Rename in place: a small form, no prompt().
      await op.locator('main').getByRole('button', { name: 'Rename' }).click();
      await op.getByLabel('New name for vwo 4').fill('vwo 4 (2026)');
      await op.getByRole('button', { name: 'Save name' }).click();
      await op.locator('main h1', { hasText: 'vwo 4 (2026)' }).waitFor();
      expect((await admin().get(`/api/admin/v1/lists/${list}`)).json<{ name: string }>().name).toBe('vwo 4 (2026)');
      expect(w.dialogs.filter((dialog) => dialog.startsWith('prompt'))).toEqual([]);
    },
  );

  it.skipIf(skipBrowser)('publishing an empty list asks first, saying that it is empty', async () => {
    const made = await admin().post('/api/admin/v1/schools', { name: 'Erasmus Lyceum', type: 'VO' });
    const school = made.json<{ identifier: string }>().identifier;
    const empty = await admin().post('/api/admin/v1/lists', { school, name: 'Leeg', tags: [] });
    const full = await admin().post('/api/admin/v1/lists', {
      school,
      name: 'Vol',
      tags: [],
      items: [{ ean: MATH, title: 'Getal & Ruimte' }],
    });
    const status = async (response: typeof empty) =>
      (await admin().get(`/api/admin/v1/lists/${response.json<{ identifier: string }>().identifier}`)).json<{
        status: string;
      }>().status;

    const op = await w.operator();
    await section(op, 'Schools & lists', 'Schools & lists');
    await op.locator('.tree .row', { hasText: 'Vol' }).getByRole('button', { name: 'Publish' }).click();
    await op.getByText('List Vol is now published.', { exact: false }).waitFor();
    // A list with items is published without a question.
    expect(w.dialogs).toEqual([]);
    await op.locator('.tree .row', { hasText: 'Leeg' }).getByRole('button', { name: 'Publish' }).click();
    await op.getByText('List Leeg is now published.', { exact: false }).waitFor();
    expect(w.dialogs).toEqual([
      'confirm: Leeg is empty: it has no items. Publish it anyway? Partners will see a list without any book.',
    ]);
    expect([await status(full), await status(empty)]).toEqual(['published', 'published']);
  });

  it.skipIf(skipBrowser)('offers show their identifier; one is withdrawn, another deleted', async () => {
    const first = await admin().post('/api/admin/v1/offers', { ean: MATH, price: 12.5, condition: 'good' });
    const second = await admin().post('/api/admin/v1/offers', { ean: ENGLISH, price: 8, condition: 'excellent' });
    const [a, b] = [
      first.json<{ id: number; identifier: string }>(),
      second.json<{ id: number; identifier: string }>(),
    ];
    const op = await w.operator();
    await section(op, 'Offers', 'Offers');
    expect(await op.locator('main td[data-label="Identifier"]').allTextContents()).toEqual([
      a.identifier,
      b.identifier,
    ]);
    const row = (identifier: string) => op.locator('main tr', { hasText: identifier });
    await row(a.identifier).getByRole('button', { name: 'Withdraw' }).click();
    await op
      .getByText(`Offer ${a.identifier.slice(0, 8)}… (EAN ${MATH}) withdrawn: it no longer shows in the API.`)
      .waitFor();
    expect(await row(a.identifier).locator('.badge').getAttribute('data-state')).toBe('withdrawn');
    // A withdrawn offer offers no second Withdraw.
    expect(await row(a.identifier).getByRole('button', { name: 'Withdraw' }).count()).toBe(0);

    await row(b.identifier).getByRole('button', { name: 'Edit price' }).click();
    await op.getByLabel(`New seller price of offer ${b.identifier} (EUR)`).fill('9.25');
    await op.getByRole('button', { name: 'Save price' }).click();
    await op.getByText(`Price of offer ${b.identifier.slice(0, 8)}… (EAN ${ENGLISH}) is now €9.25.`).waitFor();
    await w.shoot(op, 'console-offers');

    await row(b.identifier).getByRole('button', { name: 'Delete' }).click();
    await op.getByText(`Offer ${b.identifier.slice(0, 8)}… (EAN ${ENGLISH}) deleted.`).waitFor();
    expect(w.dialogs.at(-1)).toMatch(new RegExp(`^confirm: Delete offer ${b.identifier} \\(EAN ${ENGLISH}\\)\\?`));
    expect(await row(b.identifier).count()).toBe(0);
    expect(await db().selectFrom('offers').select(['id', 'status', 'price_cents']).orderBy('id').execute()).toEqual([
      { id: a.id, status: 'withdrawn', price_cents: 1250 },
    ]);
    expect(w.dialogs.filter((dialog) => dialog.startsWith('prompt'))).toEqual([]);
  });
});
