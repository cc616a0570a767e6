/**
 * In a real browser: the console and the portal tell the truth about a failing receiver.
 * Counts say what they count (attempts or deliveries) and agree with the chart; a failed test
 * ping is reported as failed; every state reads in the API's word with its label; the
 * portal's form takes the offer filter; the portal's delivery detail names the list and its
 * school and shows what each attempt sent; the console's sign-in says where the admin token
 * comes from and hides the navigation. Each test has an instance of its own (support.ts).
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { DESKTOP, HOSTILE, section, useBrowserWorlds } from './support.js';

const PHONE = { width: 390, height: 844 };

// The page-side steps are scripts (strings): the tests compile without the DOM's types.

/** Every text the notice bar showed, in order (recorded by the page itself, so none is missed). */
async function recordNotices(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(`(() => {
    const box = document.getElementById('notice');
    const seen = [];
    window.seenNotices = seen;
    new MutationObserver(() => {
      const text = box.className + ': ' + (box.textContent ?? '');
      if (box.textContent && seen.at(-1) !== text) seen.push(text);
    }).observe(box, { childList: true, characterData: true, subtree: true, attributes: true });
  })()`);
  return () => page.evaluate('window.seenNotices') as Promise<string[]>;
}

/** How many tiles each row of the page's `.cards` holds, top to bottom. */
const tileRows = (page: Page): Promise<number[]> =>
  page.evaluate(`(() => {
    const rows = new Map();
    for (const card of document.querySelectorAll('main .cards > .card')) {
      const top = Math.round(card.getBoundingClientRect().top);
      rows.set(top, (rows.get(top) ?? 0) + 1);
    }
    return [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, count]) => count);
  })()`) as Promise<number[]>;

/** The chart's axis text as drawn on screen (font size × the SVG's scale) and the body text's size, in px. */
const axisAndBody = (page: Page): Promise<[number, number]> =>
  page.evaluate(`(() => {
    const svg = document.querySelector('figure.chart svg');
    const text = svg?.querySelector('text');
    if (!svg || !text) return [NaN, NaN];
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const axis = Number.parseFloat(getComputedStyle(text).fontSize) * scale;
    return [Math.round(axis * 100) / 100, Number.parseFloat(getComputedStyle(document.body).fontSize)];
  })()`) as Promise<[number, number]>;

describeEachEngine('the console and the portal tell the truth', (engine) => {
  const world = useBrowserWorlds(engine);

  it.skipIf(skipBrowser)(
    'after 4 failed attempts every count says attempts or deliveries, and they agree with the chart',
    async () => {
      // Four quick attempts, then a long wait: failing, but no delivery has failed for good.
      const w = await world({ webhookRetryScheduleSeconds: [1, 1, 1, 3600] });
      const client = await w.shop();
      const created = await w.h
        .as(client)
        .post('/api/lml/v1/subscriptions', { notificationUrl: w.flaky.url, event: 'list.published' });
      expect(created.statusCode).toBe(201);
      const subscription = created.json<{ id: string; notificationUrl: string }>();
      await w.publishedList();
      await w.flaky.waitFor(4, 20_000);
      await expect
        .poll(async () => (await w.h.asAdmin().get('/api/admin/v1/overview')).json<{ failedAttempts24h: number }>(), {
          timeout: 15_000,
        })
        .toMatchObject({ failedAttempts24h: 4, failedDeliveries24h: 0 });

      const op = await w.operator();
      const tile = (label: string) => op.locator(`.card[data-tile="${label}"]`);
      expect(await tile('failed attempts, last 24 h').textContent()).toBe('4failed attempts, last 24 h');
      expect(await tile('failed attempts, last 24 h').getAttribute('class')).toBe('card bad');
      expect(await tile('deliveries failed for good, last 24 h').textContent()).toBe(
        '0deliveries failed for good, last 24 h',
      );
      // The red bars add up to the tile.
      const failedBars = await op
        .locator('figure.chart g > title')
        .evaluateAll((titles) =>
          titles.reduce((sum, t) => sum + Number(/, (\d+) failed$/.exec(t.textContent ?? '')?.[1] ?? 0), 0),
        );
      expect(failedBars).toBe(4);
      expect(await op.locator('figure.chart figcaption').textContent()).toBe(
        'succeeded attemptsfailed attempts4 attempts in the last 24 hours',
      );

      // The health view counts the failing attempts from the first one.
      await section(op, 'Subscriptions', 'Webhook subscriptions');
      const row = op.locator('tr', { hasText: subscription.notificationUrl });
      expect(await row.locator('td[data-label="Failed attempts in a row"]').textContent()).toBe('4');
      expect(await row.locator('td[data-label="Health"]').textContent()).toMatch(
        /^active · not received · failing since (\d+ seconds ago|now)$/,
      );
      const banner = op.locator(`.banner[data-subscription="${subscription.id}"]`);
      expect(await banner.locator('p').textContent()).toMatch(
        /— Failing: every attempt has failed since (\d+ seconds ago|now) \(4 failed attempts in a row\)\. After 5 days of failures the subscription is disabled\.$/,
      );

      await w.shoot(op, 'console-subscriptions-failing', () => section(op, 'Subscriptions', 'Webhook subscriptions'));

      // The partner sees the same state, from the first failed attempt, with the same count.
      const pt = await w.partner(client);
      await section(pt, 'Subscriptions', 'Subscriptions');
      expect(await pt.locator(`.banner[data-subscription="${subscription.id}"] p`).textContent()).toMatch(
        /— Failing: every attempt has failed since (\d+ seconds ago|now) \(4 failed attempts in a row\)\. After 5 days/,
      );
      expect(await pt.locator('td[data-label="Status"]').textContent()).toMatch(
        /^active · not received · failing since (\d+ seconds ago|now)$/,
      );
      await section(op, 'Overview', 'Overview');
      await w.shoot(op, 'console-overview-failing', () => section(op, 'Overview', 'Overview'));
    },
  );

  it.skipIf(skipBrowser)(
    'no overview tile sits alone on a row and the axis text is not larger than the body text, at 1280 and 390 px',
    async () => {
      const w = await world();
      await w.subscribeReceivers(await w.shop());
      await w.publishedList();
      await w.flaky.waitFor(1, 10_000);
      const op = await w.operator();
      expect(await op.locator('main .cards > .card').count()).toBe(8);
      expect(await tileRows(op)).toEqual([4, 4]);
      const [axis, body] = await axisAndBody(op);
      expect(body).toBe(15);
      expect(axis).toBeLessThanOrEqual(body);
      expect(axis).toBeGreaterThanOrEqual(11);

      await op.setViewportSize(PHONE);
      await section(op, 'Overview', 'Overview');
      expect(await tileRows(op)).toEqual([2, 2, 2, 2]);
      const [phoneAxis] = await axisAndBody(op);
      expect(phoneAxis).toBeLessThanOrEqual(body);
      expect(phoneAxis).toBeGreaterThanOrEqual(11);

      // The storage page's tiles too.
      await section(op, 'Storage', 'Storage');
      expect(await tileRows(op)).toEqual([2, 2, 2]);
      await op.setViewportSize(DESKTOP);
      await section(op, 'Storage', 'Storage');
      expect(await tileRows(op)).toEqual([3, 3]);
      await section(op, 'Overview', 'Overview');
      await w.shoot(op, 'console-overview', () => section(op, 'Overview', 'Overview'));
    },
  );

  it.skipIf(skipBrowser)(
    'a failed test ping is reported as failed, in red, in words; a good one in green; never "done"',
    async () => {
      const w = await world();
      const client = await w.shop();
      await w.subscribeReceivers(client);
      const pt = await w.partner(client);
      await section(pt, 'Subscriptions', 'Subscriptions');
      const notices = await recordNotices(pt);
      const url = (await pt.locator('td[data-label="Receiver"]', { hasText: w.flaky.url }).textContent()) ?? '';

      await pt.locator('tr', { hasText: w.flaky.url }).getByRole('button', { name: 'Send test ping' }).click();
      await pt.locator('#notice.error').waitFor();
      const failed = (await pt.locator('#notice').textContent()) ?? '';
      expect(failed).toMatch(
        new RegExp(
          `^Test ping to ${url.replace(/[.?/]/g, '\\$&')} failed: the receiver answered HTTP 500 after \\d+ ms\\. A ping succeeds only on a 2xx answer\\.$`,
        ),
      );
      expect(await pt.locator('#ping-result').textContent()).toMatch(
        /^Test ping result: failed · HTTP 500 in \d+ ms · (\d+ seconds? ago|now)$/,
      );
      expect(await pt.locator('#ping-result .badge').getAttribute('class')).toBe('badge failed');
      expect(await notices()).toEqual([`info: Test ping sent to ${url}; waiting for the answer…`, `error: ${failed}`]);
      await w.shoot(pt, 'portal-ping-failed');
      // One failed ping does not make the subscription failing: no banner, the state unchanged.
      await section(pt, 'Subscriptions', 'Subscriptions');
      expect(await pt.locator('.banner').count()).toBe(0);
      expect(await pt.locator('tr', { hasText: w.flaky.url }).locator('td[data-label="Status"]').textContent()).toBe(
        'active · receiving',
      );

      const okUrl = (await pt.locator('td[data-label="Receiver"]', { hasText: w.ok.url }).textContent()) ?? '';
      await pt.locator('tr', { hasText: w.ok.url }).getByRole('button', { name: 'Send test ping' }).click();
      await pt.locator('#notice.ok').waitFor();
      expect(await pt.locator('#notice').textContent()).toMatch(
        new RegExp(
          `^Test ping to ${okUrl.replace(/[.?/]/g, '\\$&')} succeeded: the receiver answered HTTP 200 in \\d+ ms\\.$`,
        ),
      );
      expect(await pt.locator('#ping-result').textContent()).toMatch(/^Test ping result: succeeded · HTTP 200 in /);
      expect((await notices()).filter((text) => /done/.test(text))).toEqual([]);
    },
  );

  it.skipIf(skipBrowser)('console and portal use the API words, each with its label from one map', async () => {
    const w = await world();
    const client = await w.shop();
    await w.subscribeReceivers(client);
    await w.publishedList();
    await w.ok.waitFor(1, 10_000);
    await w.flaky.waitFor(1, 10_000);
    await expect
      .poll(async () =>
        (await w.h.asAdmin().get('/api/admin/v1/deliveries?limit=10'))
          .json<{ data: { status: string }[] }>()
          .data.map((d) => d.status)
          .sort(),
      )
      .toEqual(['failed', 'succeeded']);

    const pt = await w.partner(client);
    expect(await pt.locator('main .badge').textContent()).toBe('active · credentials work');
    await section(pt, 'Deliveries', 'Deliveries');
    expect((await pt.locator('td[data-label="Outcome"]').allTextContents()).sort()).toEqual([
      'failed · not delivered (HTTP 500)',
      'succeeded · delivered',
    ]);
    const statusOptions = [
      'any status',
      'pending · queued',
      'succeeded · delivered',
      'failed · not delivered',
      'cancelled · not sent: client revoked',
    ];
    expect(await pt.getByLabel('Status').locator('option').allTextContents()).toEqual(statusOptions);
    // Each badge carries the API's word, the word its text starts with.
    for (const state of await pt
      .locator('td[data-label="Outcome"] .badge')
      .evaluateAll((badges) => badges.map((b) => [b.getAttribute('data-state'), b.textContent])))
      expect(state[1]?.startsWith(`${state[0]} · `)).toBe(true);
    // On a phone the longest state wraps inside its card rather than running out of it.
    await pt.setViewportSize(PHONE);
    const outside = await pt.locator('td[data-label="Outcome"] .badge').evaluateAll(
      (badges) =>
        badges.filter((b) => {
          const card = b.closest('tr')?.getBoundingClientRect();
          return card === undefined || b.getBoundingClientRect().right > card.right;
        }).length,
    );
    expect(outside).toBe(0);
    await pt.setViewportSize(DESKTOP);
    await pt.locator('tr', { hasText: w.flaky.url }).getByRole('button', { name: 'Attempts' }).click();
    expect(await pt.locator('#delivery-detail td[data-label="Result"]').textContent()).toBe('failed · HTTP 500');
    await section(pt, 'Subscriptions', 'Subscriptions');
    const statuses = await pt.locator('td[data-label="Status"]').allTextContents();
    expect(statuses.sort()).toEqual([
      expect.stringMatching(/^active · not received · failing since (\d+ seconds? ago|now)$/),
      'active · receiving',
    ]);

    const op = await w.operator();
    await section(op, 'Deliveries', 'Delivery log');
    expect((await op.locator('td[data-label="Outcome"]').allTextContents()).sort()).toEqual([
      'failed · not delivered (HTTP 500)',
      'succeeded · delivered',
    ]);
    expect(await op.getByLabel('Status').locator('option').allTextContents()).toEqual(statusOptions);
    const page = await op.locator('main').textContent();
    expect(page).not.toMatch(/\(http /);
  });

  it.skipIf(skipBrowser)("the portal's subscription form takes the offer filter: EANs or a list's items", async () => {
    const w = await world();
    const client = await w.shop();
    const list = await w.publishedList('Erasmus Lyceum', 'vwo 4');
    const pt = await w.partner(client);
    await section(pt, 'Subscriptions', 'Subscriptions');
    // The filter is offered for offer events only.
    expect(await pt.getByLabel('Which offers').isVisible()).toBe(false);
    await pt.getByLabel('Event').selectOption('offer.published');
    expect(await pt.getByLabel('Which offers').isVisible()).toBe(true);
    expect(await pt.getByLabel('Which offers').locator('option').allTextContents()).toEqual([
      'every offer',
      'only these EANs',
      "only a list's items",
    ]);

    await pt.getByLabel('Which offers').selectOption('eans');
    await pt.getByLabel('Receiver URL').fill(w.ok.url);
    await pt.getByLabel('EANs (comma-separated)').fill('9789001891442, 9780194837125');
    await pt.getByRole('button', { name: 'Subscribe' }).click();
    const eanRow = pt.locator('tr', { hasText: w.ok.url });
    await eanRow.waitFor();
    expect(await eanRow.locator('td[data-label="Event"]').textContent()).toBe(
      'Offer publishedonly 2 EANs: 9789001891442, 9780194837125',
    );

    await pt.getByLabel('Event').selectOption('offer.status');
    await pt.getByLabel('Which offers').selectOption('list');
    await pt.getByLabel('Receiver URL').fill(w.flaky.url);
    await pt.getByLabel('List', { exact: true }).fill(list);
    await pt.getByRole('button', { name: 'Subscribe' }).click();
    const listRow = pt.locator('tr', { hasText: w.flaky.url });
    await listRow.waitFor();
    expect(await listRow.locator('td[data-label="Event"]').textContent()).toBe(
      'Offer status changedonly the items of vwo 4',
    );
    // The list picker names the lists.
    expect(await pt.locator('datalist#filter-lists option').evaluateAll((o) => o.map((x) => x.textContent))).toEqual([
      'vwo 4 (Erasmus Lyceum)',
    ]);

    const stored = (await w.h.as(client).get('/api/lml/v1/subscriptions')).json<{
      data: { notificationUrl: string; event: string; filter?: unknown }[];
    }>().data;
    expect(stored.map((s) => [s.event, s.filter]).sort()).toEqual([
      ['offer.published', { eans: ['9789001891442', '9780194837125'] }],
      ['offer.status', { list }],
    ]);

    // A bad EAN is refused under the EANs field, in the field's words.
    await w.expectingRefusals(async () => {
      await pt.getByLabel('Event').selectOption('offer.updated');
      await pt.getByLabel('Which offers').selectOption('eans');
      await pt.getByLabel('Receiver URL').fill(`${w.ok.url}/other`);
      await pt.getByLabel('EANs (comma-separated)').fill('123');
      await pt.getByRole('button', { name: 'Subscribe' }).click();
      await pt.locator('#error-eans:not(:empty)').waitFor();
    });
    expect(await pt.locator('#error-eans').textContent()).toMatch(/^Invalid EAN code: 123 \(.+\)$/);
    expect(await pt.getByLabel('EANs (comma-separated)').getAttribute('aria-invalid')).toBe('true');
    expect(await pt.locator('#notice').textContent()).toBe('Subscription not created: see the form.');
    await w.shoot(pt, 'portal-subscription-filter');
  });

  it.skipIf(skipBrowser)(
    "the portal's delivery detail names the list and its school and shows what each attempt sent",
    async () => {
      const w = await world();
      const client = await w.shop();
      await w.subscribeReceivers(client);
      await w.publishedList();
      await w.ok.waitFor(1, 10_000);
      const pt = await w.partner(client);
      await section(pt, 'Deliveries', 'Deliveries');
      await expect
        .poll(async () => {
          await section(pt, 'Deliveries', 'Deliveries');
          return pt.locator('tr', { hasText: w.ok.url }).locator('td[data-label="Outcome"]').textContent();
        })
        .toBe('succeeded · delivered');
      await pt.locator('tr', { hasText: w.ok.url }).getByRole('button', { name: 'Attempts' }).click();
      const detail = pt.locator('#delivery-detail');
      await detail.locator('h2').waitFor();
      expect(await detail.locator('h2').textContent()).toBe(`List published: ICT jaar 1 (${HOSTILE})`);
      const okUrl =
        (await pt.locator('tr', { hasText: w.ok.url }).locator('td[data-label="Receiver"]').textContent()) ?? '';
      expect(await detail.locator('p').first().textContent()).toMatch(
        new RegExp(`^succeeded · delivered · to ${okUrl.replace(/[.?/]/g, '\\$&')} · created .+ · delivery id dlv_`),
      );
      // The body each attempt sent is the body the receiver got.
      const sent = w.ok.received[0]?.body;
      expect(sent).toBeDefined();
      expect(await detail.locator('td[data-label="Request"] pre.request-body').allTextContents()).toEqual([sent]);
      expect(await detail.locator('td[data-label="Request"] pre.headers').textContent()).toContain(
        'webhook-signature: •••••••• (masked)',
      );
      expect(await pt.locator('main img').count()).toBe(0);

      // The portal's log and the console's name the same subject.
      expect(await pt.locator('tr', { hasText: w.ok.url }).locator('td[data-label="About"]').textContent()).toBe(
        `ICT jaar 1 (${HOSTILE})`,
      );
      const op = await w.operator();
      await section(op, 'Deliveries', 'Delivery log');
      expect(
        await op.locator('tr', { hasText: w.ok.url }).locator('td[data-label="About"]').first().textContent(),
      ).toBe(`ICT jaar 1 (${HOSTILE})`);
      await w.shoot(pt, 'portal-delivery-detail');
    },
  );

  it.skipIf(skipBrowser)(
    'the sign-in page says where the admin token comes from; nav and Sign out are hidden while signed out',
    async () => {
      const w = await world();
      const op = await w.page('operator');
      await op.goto(`${w.base}/dashboard`);
      await op.getByRole('heading', { name: 'Sign in' }).waitFor();
      expect(await op.locator('#token-source').textContent()).toBe(
        'It is the server\'s ADMIN_TOKEN setting. When that is not set, the server made one on its first start and printed it once in its output, on the line starting "Admin token (generated on first start, shown once…)".',
      );
      expect(await op.locator('#token-reset').textContent()).toBe(
        'Lost it? On the server, run npx shelfmark admin-token --reset: it prints a new token, and every server refuses the old one within 5 seconds. When ADMIN_TOKEN is set, change it there instead.',
      );
      const hidden = async (page: Page) => [
        await page.locator('nav').isVisible(),
        await page.getByRole('button', { name: 'Sign out' }).isVisible(),
        await page.evaluate("getComputedStyle(document.querySelector('nav')).display"),
      ];
      expect(await hidden(op)).toEqual([false, false, 'none']);
      await w.shoot(op, 'console-sign-in');

      await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await op.getByRole('button', { name: 'Sign in' }).click();
      await op.locator('main h1', { hasText: 'Overview' }).waitFor();
      expect(await hidden(op)).toEqual([true, true, 'flex']);
      await op.getByRole('button', { name: 'Sign out' }).click();
      await op.getByRole('heading', { name: 'Sign in' }).waitFor();
      expect(await op.locator('#notice').textContent()).toBe('Signed out.');
      expect(await hidden(op)).toEqual([false, false, 'none']);

      // The portal's signed-out page as well.
      const pt = await w.page('partner');
      await w.expectingRefusals(async () => {
        await pt.goto(`${w.base}/portal`);
        await pt.getByRole('heading', { name: 'Signed out' }).waitFor();
      });
      expect(await hidden(pt)).toEqual([false, false, 'none']);
    },
  );
});
