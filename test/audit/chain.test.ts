/**
 * The chain: serial with two nodes writing at once, tamper evident (an edit, a removal in the middle
 * or at the end is the first broken link `audit verify` reports), and written in the change's own
 * transaction: a change that fails after its record leaves no record, a record that cannot be written
 * leaves no change.
 */
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { verifyChain } from '../../src/audit/verify.js';
import { connectDatabase, type Engine } from '../../src/db/database.js';
import { createServices } from '../../src/main/services.js';
import { cli, cliEnvironment } from '../support/cli.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, type Harness } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { allRecords } from './support.js';

/** A trigger that makes every insert into `table` fail, as a broken disk or a constraint would. */
async function failInserts(h: Harness, engine: Engine, table: string): Promise<void> {
  const db = h.database.db.kysely;
  if (engine === 'sqlite') {
    await sql
      .raw(`create trigger fail_${table} before insert on ${table} begin select raise(abort, 'forced failure'); end`)
      .execute(db);
    return;
  }
  await sql
    .raw(
      `create function fail_${table}() returns trigger language plpgsql as $$ begin raise exception 'forced failure'; end $$`,
    )
    .execute(db);
  await sql
    .raw(`create trigger fail_${table} before insert on ${table} for each row execute function fail_${table}()`)
    .execute(db);
}

const count = async (h: Harness, table: 'audit_records' | 'clients' | 'schools'): Promise<number> => {
  const row = await h.database.db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

describeEachEngine('audit: the chain', (engine) => {
  const h = useHarness(engine, { options: { file: true } });

  async function someRecords(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await h.asAdmin().post('/api/admin/v1/schools', { name: `School ${i}`, type: 'VO' });
  }

  it('stays one serial chain while two nodes write at once (SQLite: one node, its writers interleaved)', async () => {
    // better-sqlite3 is synchronous: a second connection in this thread would wait for the first with
    // the event loop blocked. One SQLite node's writers interleave on its one connection instead.
    const second = engine === 'postgres' ? await connectDatabase(h.database.url) : h.database.db;
    try {
      const other = await createServices({ config: h.config, db: second, clock: h.clock });
      await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          (i % 2 === 0 ? h.services : other).clients.create({ name: `Client ${i}` }, SYSTEM),
        ),
      );
    } finally {
      if (second !== h.database.db) await second.close();
    }
    expect(await verifyChain(h.database.db.kysely)).toEqual({
      intact: true,
      records: 24,
      anchor: { seq: 0, hash: '0'.repeat(64) },
    });
    const records = await allRecords(h);
    expect(records.map((record) => record.prevHash)).toEqual([
      '0'.repeat(64),
      ...records.slice(0, -1).map((record) => record.hash),
    ]);
  });

  it('reports an edited record as the first broken link (CLI exit 1)', async () => {
    await someRecords(4);
    const records = await allRecords(h);
    await h.database.db.kysely
      .updateTable('audit_records')
      .set({ changes: '{"name":{"before":null,"after":"Quietly renamed"}}' })
      .where('seq', '=', 3)
      .execute();
    expect(await verifyChain(h.database.db.kysely)).toEqual({
      intact: false,
      records: 2,
      brokenAt: { seq: 3, id: records[2]?.id },
      reason: 'the content does not match its hash (the record was changed)',
    });
    const restore = cliEnvironment(h, ADMIN_TOKEN);
    try {
      expect(await cli(['audit', 'verify'], true)).toEqual({
        code: 1,
        stdout: `chain broken at record 3 (${records[2]?.id}): the content does not match its hash (the record was changed); 2 records before it verified\n`,
        stderr: '',
      });
    } finally {
      restore();
    }
  });

  it('reports an edit that recomputed the hash by the link after it', async () => {
    await someRecords(3);
    const records = await allRecords(h);
    await h.database.db.kysely
      .updateTable('audit_records')
      .set({ hash: 'f'.repeat(64) })
      .where('seq', '=', 2)
      .execute();
    expect(await verifyChain(h.database.db.kysely)).toMatchObject({
      intact: false,
      brokenAt: { seq: 2, id: records[1]?.id },
    });
  });

  it('reports a record removed from the middle, and one removed from the end', async () => {
    await someRecords(4);
    const records = await allRecords(h);
    await h.database.db.kysely.deleteFrom('audit_records').where('seq', '=', 4).execute();
    expect(await verifyChain(h.database.db.kysely)).toEqual({
      intact: false,
      records: 3,
      brokenAt: { seq: 4, id: null },
      reason: "the chain's head names record 4, but the records end at 3",
    });
    await h.database.db.kysely.deleteFrom('audit_records').where('seq', '=', 2).execute();
    expect(await verifyChain(h.database.db.kysely)).toEqual({
      intact: false,
      records: 1,
      brokenAt: { seq: 2, id: records[2]?.id },
      reason: 'record 2 is missing (the next one is 3)',
    });
  });

  it('a change that fails after its record was written leaves neither (the outbox fails after the record)', async () => {
    await someRecords(1);
    const before = await allRecords(h);
    await failInserts(h, engine, 'events');
    const response = await h.asAdmin().post('/api/admin/v1/schools', { name: 'Never', type: 'VO' });
    expect(response.statusCode).toBe(500);
    expect(await count(h, 'schools')).toBe(1);
    expect(await allRecords(h)).toEqual(before);
    expect(await verifyChain(h.database.db.kysely)).toMatchObject({ intact: true, records: 1 });
  });

  it('a record that cannot be written leaves no change', async () => {
    await failInserts(h, engine, 'audit_records');
    const response = await h.asAdmin().post('/api/admin/v1/clients', { name: 'Unrecorded' });
    expect(response.statusCode).toBe(500);
    expect(await count(h, 'clients')).toBe(0);
    expect(await count(h, 'audit_records')).toBe(0);
    const head = await h.database.db.kysely.selectFrom('audit_chain').selectAll().executeTakeFirstOrThrow();
    expect(Number(head.last_seq)).toBe(0);
  });
});
