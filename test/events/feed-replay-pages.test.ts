/**
 * "Replay since…" behind the portal's and the console's pages: the partner replays its own
 * subscription (another client's is a 404), the operator any client's; both record the audit action
 * and queue the deliveries of the past events the subscription matches.
 */
import { expect, it } from 'vitest';
import { isoTime } from '../../src/clock.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, type TestClient } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { createSchool } from './feed-support.js';

const DAY_MS = 86_400_000;

describeEachEngine('replay from the portal and the console', (engine) => {
  const h = useHarness(engine, {
    config: { webhookAllowPrivate: true },
    client: { name: 'Back office', scopes: ['webhooks:manage', 'lml:read'] },
  });

  async function signIn(client: TestClient): Promise<Record<string, string>> {
    const link = await h.asAdmin().post(`/api/admin/v1/clients/${client.id}/portal-link`);
    const token = link.json<{ path: string }>().path.split('#')[1];
    const response = await h.anonymous().post('/portal/api/sign-in', { token });
    expect(response.statusCode).toBe(200);
    const cookie = String(response.headers['set-cookie']).split(';')[0] ?? '';
    return { cookie, 'x-csrf-token': response.json<{ csrfToken: string }>().csrfToken };
  }
  const subscribe = async (client: TestClient): Promise<string> => {
    const created = await h
      .as(client)
      .post('/api/lml/v1/subscriptions', { notificationUrl: 'http://127.0.0.1:9/hooks', event: 'school.created' });
    expect(created.statusCode).toBe(201);
    return created.json<{ id: string }>().id;
  };
  const pending = async (subscriptionId: string) =>
    (
      await h.database.db.kysely
        .selectFrom('deliveries')
        .select('id')
        .where('subscription_id', '=', subscriptionId)
        .where('status', '=', 'pending')
        .execute()
    ).length;
  const audited = async () =>
    (await h.database.db.kysely.selectFrom('audit_records').select('action').execute()).map((row) => row.action);

  it("the partner replays its own subscription from the portal; another client's answers 404", async () => {
    await createSchool(h, 'Alfa');
    await createSchool(h, 'Beta');
    const id = await subscribe(h.client);
    const session = await signIn(h.client);
    const body = { from: isoTime(h.clock.now() - DAY_MS) };
    const replayed = await h.anonymous().post(`/portal/api/subscriptions/${id}/replay`, body, { headers: session });
    expect(replayed.statusCode).toBe(202);
    expect(replayed.json()).toEqual({ queued: 2, until: expect.any(String) });
    expect(await pending(id)).toBe(2);
    expect(await audited()).toContain('subscription.replayed');

    const other = await createClientWithToken(h, 'Other', ['webhooks:manage']);
    const theirs = await subscribe(other);
    const refused = await h.anonymous().post(`/portal/api/subscriptions/${theirs}/replay`, body, { headers: session });
    expect(refused.statusCode).toBe(404);
    const withoutCsrf = await h
      .anonymous()
      .post(`/portal/api/subscriptions/${id}/replay`, body, { headers: { cookie: session.cookie as string } });
    expect(withoutCsrf.statusCode).toBe(403);
  });

  it("the operator replays any client's subscription from the console", async () => {
    await createSchool(h, 'Alfa');
    const id = await subscribe(h.client);
    const replayed = await h
      .asAdmin()
      .post(`/api/admin/v1/subscriptions/${id}/replay`, { from: isoTime(h.clock.now() - DAY_MS) });
    expect(replayed.statusCode).toBe(202);
    expect(replayed.json()).toMatchObject({ queued: 1 });
    expect(await pending(id)).toBe(1);
    const unknown = await h
      .asAdmin()
      .post('/api/admin/v1/subscriptions/sub_nope/replay', { from: isoTime(h.clock.now()) });
    expect(unknown.statusCode).toBe(404);
  });
});
