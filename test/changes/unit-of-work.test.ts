/**
 * A change is one unit of work (src/changes/unit-of-work.ts): its rows, its events and its audit
 * records commit together or not at all. The records are appended last, just before the commit (the
 * chain's head row is then held only for the commit), and a record is checked where it is made: no
 * secret in it, and an action the acting route declares, so a route whose service records another
 * action than it declares fails, with nothing written.
 */
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { type Initiator, initiatorOf, SYSTEM } from '../../src/audit/initiator.js';
import { SchoolStore } from '../../src/lml/school-store.js';
import { allRecords } from '../audit/support.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';

const SCHOOL = {
  identifier: 'a'.repeat(32),
  name: 'De Linde',
  type: 'VO',
  location: null,
  brin: null,
  created_at: 1,
  updated_at: 1,
};

describeEachEngine('a unit of work', (engine) => {
  const h = useHarness(engine);

  const chainHead = async (): Promise<{ last_seq: number; last_hash: string }> => {
    const row = await h.database.db.kysely
      .selectFrom('audit_chain')
      .select(['last_seq', 'last_hash'])
      .executeTakeFirstOrThrow();
    return { last_seq: Number(row.last_seq), last_hash: row.last_hash };
  };
  const schools = () => h.database.db.kysely.selectFrom('schools').select('identifier').execute();
  const events = () => h.database.db.kysely.selectFrom('events').select('identifier').execute();

  it('appends its records after the work, in the order made, and commits them with the change and its event', async () => {
    const before = await chainHead();
    let seenDuringWork: number | undefined;
    await h.services.work.run(SYSTEM, async ({ trx, emit, record }) => {
      await new SchoolStore(trx).insert(SCHOOL);
      record('school.created', SCHOOL.identifier);
      record('school.updated', SCHOOL.identifier);
      emit({ name: 'school.created', type: 'created', resource: 'school', identifier: SCHOOL.identifier });
      seenDuringWork = (await trx.selectFrom('audit_records').select('id').execute()).length;
    });
    expect(seenDuringWork).toBe(0);
    const records = await allRecords(h);
    expect(records.map((record) => [record.action, record.target.id, record.at])).toEqual([
      ['school.created', SCHOOL.identifier, new Date(h.clock.now()).toISOString()],
      ['school.updated', SCHOOL.identifier, new Date(h.clock.now()).toISOString()],
    ]);
    expect(records[0]?.prevHash).toBe(before.last_hash);
    expect(records[1]?.prevHash).toBe(records[0]?.hash);
    expect(await chainHead()).toEqual({ last_seq: before.last_seq + 2, last_hash: records[1]?.hash });
    expect(await schools()).toEqual([{ identifier: SCHOOL.identifier }]);
    expect(await events()).toEqual([{ identifier: SCHOOL.identifier }]);
  });

  it('keeps nothing of a change whose work fails after its record and its event', async () => {
    const before = await chainHead();
    await expect(
      h.services.work.run(SYSTEM, async ({ trx, emit, record }) => {
        await new SchoolStore(trx).insert(SCHOOL);
        record('school.created', SCHOOL.identifier);
        emit({ name: 'school.created', type: 'created', resource: 'school', identifier: SCHOOL.identifier });
        throw new Error('the change fails');
      }),
    ).rejects.toThrow('the change fails');
    expect(await allRecords(h)).toEqual([]);
    expect(await chainHead()).toEqual(before);
    expect(await schools()).toEqual([]);
    expect(await events()).toEqual([]);
  });

  it('refuses a record that carries a secret where it is made, failing the change', async () => {
    await expect(
      h.services.work.run(SYSTEM, async ({ trx, record }) => {
        await new SchoolStore(trx).insert(SCHOOL);
        record('client.secret.reset', 'cli_x', { clientSecret: { before: null, after: 'sms_plain' } });
      }),
    ).rejects.toThrow('audit: field clientSecret may only record "rotated"');
    expect(await allRecords(h)).toEqual([]);
    expect(await schools()).toEqual([]);
  });

  it('refuses a record of an action its route does not declare, failing the change', async () => {
    const by: Initiator = { ...SYSTEM, declared: ['school.created'] };
    await expect(
      h.services.work.run(by, async ({ trx, record }) => {
        await new SchoolStore(trx).insert(SCHOOL);
        record('school.updated', SCHOOL.identifier);
      }),
    ).rejects.toThrow('audit: school.updated is recorded, but the route declares ["school.created"]');
    expect(await allRecords(h)).toEqual([]);
    expect(await schools()).toEqual([]);
  });

  it("binds a route's records to its declaration: another action answers 500 and writes nothing", async () => {
    const app = Fastify();
    app.decorateRequest('principal', null);
    app.addHook('onRequest', async (request) => {
      request.principal = { clientId: 'smc_x', clientRef: 'cli_x', scopes: [] } as unknown as typeof request.principal;
    });
    const change =
      (action: 'school.created' | 'school.updated') => async (request: Parameters<typeof initiatorOf>[0]) => {
        await h.services.work.run(initiatorOf(request), async ({ trx, record }) => {
          await new SchoolStore(trx).insert(SCHOOL);
          record(action, SCHOOL.identifier);
        });
        return { ok: true };
      };
    app.post('/declared', { config: { audit: 'school.created' } }, change('school.created'));
    app.post('/mismatched', { config: { audit: 'school.created' } }, change('school.updated'));
    try {
      const mismatched = await app.inject({ method: 'POST', url: '/mismatched' });
      expect(mismatched.statusCode).toBe(500);
      expect(await allRecords(h)).toEqual([]);
      expect(await schools()).toEqual([]);
      const declared = await app.inject({ method: 'POST', url: '/declared' });
      expect(declared.statusCode).toBe(200);
      expect((await allRecords(h)).map((record) => [record.action, record.actor])).toEqual([
        ['school.created', { type: 'partner', id: 'cli_x', name: null }],
      ]);
    } finally {
      await app.close();
    }
  });
});
