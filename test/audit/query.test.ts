/**
 * Reading the audit log: each filter, keyset pages newest first, the ndjson export (every match,
 * chain order, no page size), bad input; and no secret or secret hash anywhere in the stored rows.
 */
import { expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/canonical.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { allRecords, portalSession, storedText } from './support.js';

describeEachEngine('audit: reading and exporting', (engine) => {
  const h = useHarness(engine);

  /** 3 schools, 2 clients (one with a reset secret) and a prune's worth of time between them. */
  async function history(): Promise<AuditRecord[]> {
    for (const name of ['A', 'B', 'C']) {
      await h.asAdmin().post('/api/admin/v1/schools', { name: `School ${name}`, type: 'VO' });
      h.clock.advance(60_000);
    }
    const client = (await h.asAdmin().post('/api/admin/v1/clients', { name: 'One' })).json<{ id: string }>();
    await h.asAdmin().post('/api/admin/v1/clients', { name: 'Two' });
    await h.asAdmin().post(`/api/admin/v1/clients/${client.id}/secret`);
    return allRecords(h);
  }

  const page = async (query: Record<string, string>) => {
    const response = await h.asAdmin().get('/api/admin/v1/audit', { query });
    expect(response.statusCode).toBe(200);
    return response.json<{ has_more: boolean; data: AuditRecord[]; subjects: unknown[] }>();
  };

  it('pages newest first with has_more and starting_after, as every admin list', async () => {
    const records = await history();
    const newestFirst = [...records].reverse();
    // Each page names the clients and schools its records are about, ordered by kind, then id.
    const named = (record: AuditRecord | undefined, name: string) => ({
      type: record?.target.type,
      id: record?.target.id,
      name,
      owner: null,
    });
    const [schoolA, schoolB, schoolC, one, two] = records;
    const byId = (a: { id?: string | undefined }, b: { id?: string | undefined }) =>
      (a.id ?? '') < (b.id ?? '') ? -1 : 1;
    const first = await page({ limit: '4' });
    expect(first).toEqual({
      has_more: true,
      data: newestFirst.slice(0, 4),
      subjects: [...[named(one, 'One'), named(two, 'Two')].sort(byId), named(schoolC, 'School C')],
    });
    const second = await page({ limit: '4', starting_after: first.data[3]?.id ?? '' });
    expect(second).toEqual({
      has_more: false,
      data: newestFirst.slice(4),
      subjects: [named(schoolA, 'School A'), named(schoolB, 'School B')].sort(byId),
    });
    const unknown = await h.asAdmin().get('/api/admin/v1/audit', { query: { starting_after: 'aud_nope' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'validation-failed' });
  });

  it('filters by action (or a prefix), target, actor and time', async () => {
    const records = await history();
    const ids = (list: AuditRecord[]) => list.map((record) => record.id);
    const newest = (list: AuditRecord[]) => ids([...list].reverse());
    const clientRecords = records.filter((record) => record.target.type === 'client');
    expect(ids((await page({ action: 'school.created' })).data)).toEqual(newest(records.slice(0, 3)));
    expect(ids((await page({ action: 'client.*' })).data)).toEqual(newest(clientRecords));
    const reset = records.at(-1) as AuditRecord;
    expect(ids((await page({ targetType: 'client', targetId: reset.target.id })).data)).toEqual(
      newest(clientRecords.filter((record) => record.target.id === reset.target.id)),
    );
    expect((await page({ actor: 'admin-token' })).data).toHaveLength(records.length);
    expect((await page({ actor: 'admin token' })).data).toHaveLength(records.length);
    expect((await page({ actor: 'system' })).data).toEqual([]);
    expect(ids((await page({ since: '2026-09-01T08:01:00Z', until: '2026-09-01T08:03:00Z' })).data)).toEqual(
      newest(records.slice(1, 3)),
    );
    const bad = await h.asAdmin().get('/api/admin/v1/audit', { query: { since: 'yesterday' } });
    expect(bad.statusCode).toBe(400);
  });

  it('exports every matching record as ndjson, oldest first, with no page size', async () => {
    for (let i = 0; i < 230; i++)
      await h.services.schools.create(
        { name: `S${i}`, type: 'VO' },
        {
          actor: { type: 'operator', id: 'sub-1', name: 'ada@example.org', role: 'admin' },
          origin: { requestId: null, ip: null, userAgent: null },
        },
      );
    const response = await h
      .asAdmin()
      .get('/api/admin/v1/audit', { query: { format: 'ndjson', actor: 'ada@example.org' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson');
    const lines = response.body.trimEnd().split('\n');
    expect(lines).toHaveLength(230);
    const records = lines.map((line) => JSON.parse(line) as AuditRecord);
    expect(records[0]?.changes.name).toEqual({ before: null, after: 'S0' });
    expect(records[229]?.changes.name).toEqual({ before: null, after: 'S229' });
    expect(records.every((record, i) => i === 0 || record.prevHash === records[i - 1]?.hash)).toBe(true);
  });

  it('never stores a secret or a secret hash: admin, portal and partner API resets, rotations and creations', async () => {
    const shop = await createClientWithToken(h, 'Secretive', ['webhooks:manage']);
    const reset = (await h.asAdmin().post(`/api/admin/v1/clients/${shop.id}/secret`)).json<{ clientSecret: string }>();
    const rotated = (await h.asAdmin().post(`/api/admin/v1/clients/${shop.id}/webhook-secret`)).json<{
      webhookSecret: string;
    }>();
    const portal = await portalSession(h, shop.id);
    const portalReset = (await portal.post('/portal/api/secret')).json<{ clientSecret: string }>();
    const portalRotated = (await portal.post('/portal/api/webhook-secret')).json<{ webhookSecret: string }>();
    const row = await h.database.db.kysely
      .selectFrom('clients')
      .selectAll()
      .where('id', '=', shop.id)
      .executeTakeFirstOrThrow();
    const stored = await storedText(h);
    const secrets = [
      shop.clientSecret,
      shop.webhookSecret,
      reset.clientSecret,
      rotated.webhookSecret,
      portalReset.clientSecret,
      portalRotated.webhookSecret,
      row.secret_hash,
      row.webhook_secret,
      row.previous_webhook_secret ?? 'none',
      shop.token,
    ];
    for (const secret of secrets) expect(stored).not.toContain(secret);
    const actions = (await allRecords(h)).map((record) => record.action);
    expect(actions.filter((action) => action === 'client.secret.reset')).toHaveLength(2);
    expect(actions.filter((action) => action === 'client.webhook-secret.rotated')).toHaveLength(2);
    expect(stored).toContain('rotated');
  });

  it('reads are not recorded', async () => {
    await history();
    const before = (await allRecords(h)).length;
    await h.asAdmin().get('/api/admin/v1/clients');
    await h.asAdmin().get('/api/admin/v1/schools');
    await h.asAdmin().get('/api/admin/v1/audit');
    expect(await allRecords(h)).toHaveLength(before);
  });
});
