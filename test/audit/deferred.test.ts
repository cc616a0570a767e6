/**
 * An outbox transaction appends its audit records last, just before the commit (src/audit/recorder.ts:
 * the chain's head row is then held only for the commit): while the change's work runs nothing is in
 * the log yet; the commit brings the change, its events and its records together; a transaction that
 * fails after asking for a record leaves neither the record nor a link of the chain.
 */
import { expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { appendRecord } from '../../src/audit/recorder.js';
import { Outbox } from '../../src/events/outbox.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';
import { allRecords } from './support.js';

describeEachEngine('audit: records of an outbox transaction', (engine) => {
  const h = useHarness(engine);

  const chainHead = async (): Promise<{ last_seq: number; last_hash: string }> => {
    const row = await h.database.db.kysely
      .selectFrom('audit_chain')
      .select(['last_seq', 'last_hash'])
      .executeTakeFirstOrThrow();
    return { last_seq: Number(row.last_seq), last_hash: row.last_hash };
  };

  it('are appended after the work, in the order asked, and commit with the change and its event', async () => {
    const outbox = new Outbox(h.database.db, h.clock);
    const before = await chainHead();
    let seenDuringWork: number | undefined;
    await outbox.transaction(async (trx, emit) => {
      await appendRecord(trx, h.clock.now(), SYSTEM, 'school.created', 'sch_first');
      await appendRecord(trx, h.clock.now(), SYSTEM, 'school.updated', 'sch_first');
      emit({ name: 'school.created', type: 'created', resource: 'school', identifier: 'sch_first' });
      const rows = await trx.selectFrom('audit_records').select('id').execute();
      seenDuringWork = rows.length;
    });
    expect(seenDuringWork).toBe(0);
    const records = await allRecords(h);
    expect(records.map((record) => [record.action, record.target.id])).toEqual([
      ['school.created', 'sch_first'],
      ['school.updated', 'sch_first'],
    ]);
    expect(records[0]?.prevHash).toBe(before.last_hash);
    expect(records[1]?.prevHash).toBe(records[0]?.hash);
    expect(await chainHead()).toEqual({ last_seq: before.last_seq + 2, last_hash: records[1]?.hash });
    const events = await h.database.db.kysely.selectFrom('events').select('identifier').execute();
    expect(events).toEqual([{ identifier: 'sch_first' }]);
  });

  it('are never appended when the transaction fails after asking for them', async () => {
    const outbox = new Outbox(h.database.db, h.clock);
    const before = await chainHead();
    await expect(
      outbox.transaction(async (trx, emit) => {
        await appendRecord(trx, h.clock.now(), SYSTEM, 'school.created', 'sch_lost');
        emit({ name: 'school.created', type: 'created', resource: 'school', identifier: 'sch_lost' });
        throw new Error('the change fails');
      }),
    ).rejects.toThrow('the change fails');
    expect(await allRecords(h)).toEqual([]);
    expect(await chainHead()).toEqual(before);
    expect(await h.database.db.kysely.selectFrom('events').select('id').execute()).toEqual([]);
  });

  it('refuse a secret at once, where the change is made', async () => {
    const outbox = new Outbox(h.database.db, h.clock);
    await expect(
      outbox.transaction(async (trx) => {
        await appendRecord(trx, h.clock.now(), SYSTEM, 'client.secret.reset', 'cli_x', {
          clientSecret: { before: null, after: 'sms_plain' },
        });
      }),
    ).rejects.toThrow('audit: field clientSecret may only record "rotated"');
    expect(await allRecords(h)).toEqual([]);
  });
});
