/**
 * Over HTTP: the portal's delivery detail names what a delivery was about (a list and its
 * school, a school; nothing for a test ping or a subject that is gone) and carries, per attempt, the
 * exact body the request sent; the lists its subscription form may follow come by name. Both only with
 * a portal session, and another client's delivery stays 404.
 */
import { expect, it } from 'vitest';
import { addSubscription, emit } from '../delivery/support.js';
import { createDnsHarness } from '../subscriptions/support.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { subscriptionWithDelivery } from './support.js';

interface Detail {
  id: string;
  event: string;
  payload: { type: string; resource: string; identifier: string };
  subject: { name: string; school?: string } | null;
  attempts: { attemptNo: number; requestBody: string; requestHeaders: Record<string, string> }[];
}

describeEachEngine('portal delivery names', (engine) => {
  const h = useHarness(engine, { create: (e) => createDnsHarness(e), client: { name: 'Shop' } });

  async function signIn(clientRef: string): Promise<Record<string, string>> {
    const link = await h.asAdmin().post(`/api/admin/v1/clients/${clientRef}/portal-link`);
    const token = link.json<{ path: string }>().path.split('#')[1];
    const response = await h.anonymous().post('/portal/api/sign-in', { token });
    expect(response.statusCode).toBe(200);
    const cookie = String(response.headers['set-cookie']).split(';')[0] ?? '';
    return { cookie, 'x-csrf-token': response.json<{ csrfToken: string }>().csrfToken };
  }

  const get = (headers: Record<string, string>, url: string) =>
    h.anonymous().request('GET', url, undefined, { headers });

  it('the log and the detail name the list and its school, a school, and nothing for a ping or a subject that is gone; each attempt carries its body', async () => {
    const now = h.clock.now();
    // Port 9 of loopback: every attempt fails without leaving the machine, and is recorded all the same.
    const url = 'http://127.0.0.1:9/hooks';
    const lists = await addSubscription(h.database.db, h.client.id, `${url}/lists`, now, 'list.published');
    await addSubscription(h.database.db, h.client.id, `${url}/schools`, now, 'school.created');
    await addSubscription(h.database.db, h.client.id, `${url}/updates`, now, 'list.updated');
    const admin = h.asAdmin();
    const school = await admin.post('/api/admin/v1/schools', {
      name: 'Erasmus Lyceum',
      type: 'VO',
      location: 'Rotterdam',
    });
    expect(school.statusCode).toBe(201);
    const schoolId = school.json<{ identifier: string }>().identifier;
    const list = await admin.post('/api/admin/v1/lists', { school: schoolId, name: 'vwo 4', tags: [] });
    expect(list.statusCode).toBe(201);
    const listId = list.json<{ identifier: string }>().identifier;
    expect((await admin.post(`/api/admin/v1/lists/${listId}/status`, { status: 'published' })).statusCode).toBe(200);
    // A list.updated about a list that does not exist (any more).
    await emit(h.database.db, now);

    const session = await signIn(h.client.id);
    const ping = await h
      .anonymous()
      .request('POST', `/portal/api/subscriptions/${lists}/ping`, undefined, { headers: session });
    expect(ping.statusCode).toBe(202);
    await h.services.createDeliveryWorker({ onError: () => undefined }).runOnce();

    const page = (await get(session, '/portal/api/deliveries?limit=50')).json<{ data: Detail[] }>().data;
    // The log names them too, as the console's log does.
    expect(page.filter((d) => d.event === 'list.published').map((d) => d.subject)).toEqual([
      { name: 'vwo 4', school: 'Erasmus Lyceum' },
    ]);
    expect(page.filter((d) => d.event === 'ping').map((d) => d.subject)).toEqual([null]);
    const details = await Promise.all(
      page.map(async (d) => (await get(session, `/portal/api/deliveries/${d.id}`)).json<Detail>()),
    );
    const byEvent = (event: string) => details.filter((d) => d.event === event);
    expect(byEvent('list.published').map((d) => d.subject)).toEqual([{ name: 'vwo 4', school: 'Erasmus Lyceum' }]);
    expect(byEvent('school.created').map((d) => d.subject)).toEqual([{ name: 'Erasmus Lyceum' }]);
    expect(byEvent('ping').map((d) => d.subject)).toEqual([null]);
    const gone = details.filter((d) => d.event === 'list.updated' && d.payload.identifier !== listId);
    expect(gone.length).toBeGreaterThan(0);
    expect(gone.map((d) => d.subject)).toEqual(gone.map(() => null));
    expect(details.filter((d) => d.attempts.length > 0).length).toBeGreaterThan(0);
    for (const detail of details) {
      for (const attempt of detail.attempts) {
        // The body as sent: the stored payload, byte for byte.
        const stored = await h.database.db.kysely
          .selectFrom('deliveries')
          .innerJoin('events', 'events.id', 'deliveries.event_id')
          .select('events.payload')
          .where('deliveries.id', '=', detail.id)
          .executeTakeFirstOrThrow();
        expect(attempt.requestBody).toBe(stored.payload);
        expect(JSON.parse(attempt.requestBody)).toEqual(detail.payload);
      }
    }
  });

  it('offers the lists a filter may follow, by name, to a signed-in partner only', async () => {
    const admin = h.asAdmin();
    const school = await admin.post('/api/admin/v1/schools', { name: 'Erasmus Lyceum', type: 'VO', location: null });
    const schoolId = school.json<{ identifier: string }>().identifier;
    const list = await admin.post('/api/admin/v1/lists', { school: schoolId, name: 'vwo 4', tags: [] });
    const listId = list.json<{ identifier: string }>().identifier;
    const session = await signIn(h.client.id);
    const lists = await get(session, '/portal/api/lists');
    expect(lists.statusCode).toBe(200);
    expect(lists.json()).toEqual({ data: [{ identifier: listId, name: 'vwo 4', school: 'Erasmus Lyceum' }] });
    const anonymous = await h.anonymous().get('/portal/api/lists');
    expect(anonymous.statusCode).toBe(401);
  });

  it("answers 404 for another client's delivery", async () => {
    const { delivery } = await subscriptionWithDelivery(h, h.client.id, 'http://127.0.0.1:9/mine');
    const other = await createClientWithToken(h, 'Other shop');
    const theirs = await signIn(other.id);
    const response = await get(theirs, `/portal/api/deliveries/${delivery}`);
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toContain('requestBody');
  });
});
