/**
 * "Re-enable and recover what failed", the banner's click: the portal route acts for the signed-in
 * client only (another client's subscription is 404, CSRF required) and the admin route for any; both
 * re-enable and queue again the failed deliveries of the failing period, reaching back the whole retry
 * schedule before it began — and nothing older.
 */
import { beforeEach, expect, it } from 'vitest';
import { addFailedDelivery, addSubscription } from '../delivery/support.js';
import { createDnsHarness, type TestClient } from '../subscriptions/support.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

const HOUR = 3_600_000;
/** The retry schedule below, in milliseconds: 660 s. */
const SCHEDULE_MS = 660_000;

describeEachEngine('re-enable and recover what failed', (engine) => {
  const h = useHarness(engine, {
    create: (e) => createDnsHarness(e, { webhookRetryScheduleSeconds: [60, 600] }),
    client: { name: 'Shop' },
  });
  let other: TestClient;
  let subscription: string;
  const db = () => h.database.db.kysely;

  /** A failed delivery of the subscription, created at `at`. */
  const failedAt = (at: number): Promise<string> => addFailedDelivery(h.database.db, subscription, at);

  beforeEach(async () => {
    other = await createClientWithToken(h, 'Other shop');
    const now = h.clock.now();
    subscription = await addSubscription(h.database.db, h.client.id, 'https://shop.example/hooks', now - 4 * HOUR);
    await db()
      .updateTable('subscriptions')
      .set({ status: 'disabled', disabled_reason: 'the receiver answered 410 Gone', failing_since: now - HOUR })
      .where('id', '=', subscription)
      .execute();
  });

  async function signIn(clientRef: string): Promise<Record<string, string>> {
    const link = await h.asAdmin().post(`/api/admin/v1/clients/${clientRef}/portal-link`);
    const token = link.json<{ path: string }>().path.split('#')[1];
    const response = await h.anonymous().post('/portal/api/sign-in', { token });
    const cookie = String(response.headers['set-cookie']).split(';')[0] ?? '';
    return { cookie, 'x-csrf-token': response.json<{ csrfToken: string }>().csrfToken };
  }

  const statuses = async () =>
    (await db().selectFrom('deliveries').select(['id', 'status']).orderBy('created_at').execute()).map(
      (row) => row.status,
    );

  it('the portal route: own subscription only, CSRF required, the failing period less the retry schedule', async () => {
    const now = h.clock.now();
    await failedAt(now - HOUR - SCHEDULE_MS - 1); // failed before this period could have begun: left alone
    await failedAt(now - HOUR - SCHEDULE_MS); // may have failed within it
    await failedAt(now - 10 * 60_000);
    const url = `/portal/api/subscriptions/${subscription}/recover-failed`;

    const stranger = await h.anonymous().post(url, undefined, { headers: await signIn(other.id) });
    expect(stranger.statusCode).toBe(404);
    const headers = await signIn(h.client.id);
    const withoutCsrf = await h.anonymous().post(url, undefined, { headers: { cookie: headers.cookie ?? '' } });
    expect(withoutCsrf.statusCode).toBe(403);
    expect(await statuses()).toEqual(['failed', 'failed', 'failed']);

    const response = await h.anonymous().post(url, undefined, { headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ requeued: 2, since: new Date(now - HOUR - SCHEDULE_MS).toISOString() });
    expect(await statuses()).toEqual(['failed', 'pending', 'pending']);
    const row = await db().selectFrom('subscriptions').selectAll().where('id', '=', subscription).executeTakeFirst();
    expect(row).toMatchObject({ status: 'active', disabled_reason: null, failing_since: null });
  });

  it('the admin route does the same for any client; an unknown id is 404', async () => {
    await failedAt(h.clock.now() - 5 * 60_000);
    const url = `/api/admin/v1/subscriptions/${subscription}/recover-failed`;
    const response = await h.asAdmin().post(url);
    expect(response.json()).toEqual({
      requeued: 1,
      since: new Date(h.clock.now() - HOUR - SCHEDULE_MS).toISOString(),
    });
    const missing = await h.asAdmin().post('/api/admin/v1/subscriptions/sub_missing/recover-failed');
    expect(missing.statusCode).toBe(404);
  });
});
