/**
 * A page of the audit log names what its records are about: targets, a partner actor, a list's school
 * and a subscription's client, each once, as named now (a deleted one left out); and it pages both
 * ways, older by starting_after and newer by ending_before.
 */
import { expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/canonical.js';
import type { AuditSubject } from '../../src/audit/schemas.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';
import { allRecords, partnerWithSubscription } from './support.js';

interface AuditPage {
  has_more: boolean;
  data: AuditRecord[];
  subjects: AuditSubject[];
}

describeEachEngine('audit: the subjects of a page, and paging both ways', (engine) => {
  const h = useHarness(engine, { config: { webhookAllowPrivate: true } });

  const page = async (query: Record<string, string>): Promise<AuditPage> => {
    const response = await h.asAdmin().get('/api/admin/v1/audit', { query });
    expect(response.statusCode).toBe(200);
    return response.json<AuditPage>();
  };

  /** A school and its list, a client, and the client's subscription made through the partner API. */
  async function world() {
    const admin = h.asAdmin();
    const school = (await admin.post('/api/admin/v1/schools', { name: 'Erasmus Lyceum', type: 'VO' })).json<{
      identifier: string;
    }>().identifier;
    const list = (await admin.post('/api/admin/v1/lists', { school, name: 'vwo 4' })).json<{ identifier: string }>()
      .identifier;
    const { shop, subscription } = await partnerWithSubscription(h, 'Boekhandel Noord', {
      notificationUrl: 'http://127.0.0.1:9/hooks',
      event: 'list-published',
    });
    // Renamed after the records were made: the page names it as it is now.
    expect((await admin.patch(`/api/admin/v1/schools/${school}`, { name: 'Erasmus College' })).statusCode).toBe(200);
    return { school, list, shop, subscription };
  }

  it("names the targets, the partner, the list's school and the subscription's client, each once", async () => {
    const { school, list, shop, subscription } = await world();
    const first = await page({ limit: '50' });
    expect(first.data.map((record) => record.action)).toEqual([
      'school.updated',
      'subscription.created',
      'client.created',
      'list.created',
      'school.created',
    ]);
    expect(first.data[1]?.actor).toEqual({ type: 'partner', id: shop.id, name: null });
    expect(first.subjects).toEqual([
      { type: 'client', id: shop.id, name: 'Boekhandel Noord', owner: null },
      { type: 'school', id: school, name: 'Erasmus College', owner: null },
      { type: 'list', id: list, name: 'vwo 4', owner: 'Erasmus College' },
      { type: 'subscription', id: subscription, name: 'list.published', owner: 'Boekhandel Noord' },
    ]);
    // Only what the page's own records refer to.
    expect((await page({ action: 'list.created' })).subjects).toEqual([
      { type: 'school', id: school, name: 'Erasmus College', owner: null },
      { type: 'list', id: list, name: 'vwo 4', owner: 'Erasmus College' },
    ]);
    expect(await page({ action: 'lists.imported' })).toEqual({ has_more: false, data: [], subjects: [] });
  });

  it('leaves out a subject that no longer exists, and the export carries records only', async () => {
    const { shop, subscription } = await world();
    expect((await h.as(shop).delete(`/api/lml/v1/subscriptions/${subscription}`)).statusCode).toBe(204);
    const records = await page({ targetType: 'subscription' });
    expect(records.data.map((record) => record.action)).toEqual(['subscription.deleted', 'subscription.created']);
    expect(records.subjects).toEqual([{ type: 'client', id: shop.id, name: 'Boekhandel Noord', owner: null }]);
    const exported = await allRecords(h, { targetType: 'subscription' });
    expect(exported.map((record) => Object.keys(record).includes('subjects'))).toEqual([false, false]);
  });

  it('pages older by starting_after and newer again by ending_before, newest first both ways', async () => {
    await world();
    const newestFirst = [...(await allRecords(h))].reverse();
    expect(newestFirst).toHaveLength(5);
    const ids = (p: AuditPage) => p.data.map((record) => record.id);
    const first = await page({ limit: '2' });
    expect([ids(first), first.has_more]).toEqual([newestFirst.slice(0, 2).map((r) => r.id), true]);
    const second = await page({ limit: '2', starting_after: ids(first)[1] ?? '' });
    expect([ids(second), second.has_more]).toEqual([newestFirst.slice(2, 4).map((r) => r.id), true]);
    const third = await page({ limit: '2', starting_after: ids(second)[1] ?? '' });
    expect([ids(third), third.has_more]).toEqual([newestFirst.slice(4).map((r) => r.id), false]);

    // Back from the last page: the page before it, and newer ones exist still.
    const back = await page({ limit: '2', ending_before: ids(third)[0] ?? '' });
    expect(back).toEqual({ ...second, has_more: true });
    // Back from the second page: the first, the newest there is.
    const top = await page({ limit: '2', ending_before: ids(back)[0] ?? '' });
    expect(top).toEqual({ ...first, has_more: false });

    const both = await h.asAdmin().get('/api/admin/v1/audit', {
      query: { starting_after: ids(first)[0] ?? '', ending_before: ids(third)[0] ?? '' },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toMatchObject({
      code: 'validation-failed',
      detail: 'starting_after and ending_before cannot be given together',
    });
    const unknown = await h.asAdmin().get('/api/admin/v1/audit', { query: { ending_before: 'aud_nope' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ detail: 'ending_before "aud_nope" is not an audit record id' });
  });
});
