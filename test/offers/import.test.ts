/**
 * The offers import reads, checks and writes a file as it streams in, in one transaction: a large
 * file is all there or not there at all, whatever row is bad, and every node's read model follows
 * what it wrote.
 */
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { IMPORT_BATCH_SIZE, OfferImporter } from '../../src/offers/import.js';
import { checkedRows } from '../../src/offers/import-csv.js';
import { eanOf } from '../support/ean.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';
import { readModelOver } from './support.js';

const ROWS = 6000;
const EANS = 1500;

/** A CSV of ROWS offers over EANS EANs; `bad` replaces the price of the row at that index. */
function csv(bad?: { row: number; price: string }, remarks = 'copy'): string {
  const lines = ['ean,price,condition,status,remarks'];
  for (let i = 0; i < ROWS; i++) {
    const price = bad?.row === i ? bad.price : `${5 + (i % 40)}.50`;
    lines.push(`${eanOf(500_000 + (i % EANS))},${price},good,published,${remarks} ${i}`);
  }
  return `${lines.join('\n')}\n`;
}

describeEachEngine('offers import, streamed', (engine) => {
  const h = useHarness(engine);
  const importer = () => new OfferImporter(h.services.work, h.clock);
  const by = { initiator: SYSTEM, file: 'offers.csv' };
  const counts = async () => {
    const db = h.database.db.kysely;
    const count = async (table: 'offers' | 'offer_import_keys' | 'events' | 'offer_changes' | 'audit_records') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      offers: await count('offers'),
      keys: await count('offer_import_keys'),
      events: await count('events'),
      changes: await count('offer_changes'),
      audit: await count('audit_records'),
    };
  };

  it('a bad row near the end of a large file imports nothing, and every bad row is named', async () => {
    const before = await counts();
    const text = csv({ row: ROWS - 10, price: 'twelve' }).replace(`${eanOf(500_000)},5.50`, `${eanOf(500_000)},0`);
    const result = await importer().importChecked(checkedRows(Readable.from([text])), by);
    expect(result).toEqual({
      errors: [
        { line: 2, reason: 'price must be more than 0 and at most 100000 euros' },
        { line: ROWS - 8, reason: 'price "twelve" is not an amount in euros like 12.50' },
      ],
    });
    const late = await importer().importChecked(
      checkedRows(Readable.from([csv({ row: ROWS - 1, price: '1.234' })])),
      by,
    );
    expect(late).toEqual({ errors: [{ line: ROWS + 1, reason: 'price must have at most 2 decimals, got 1.234' }] });
    // Nothing of the batches written before the bad row is left: offers, keys, events, changes, audit.
    expect(await counts()).toEqual(before);
  });

  it('a batch the database refuses while the one before it is still being written imports nothing', async () => {
    // Batches are written two at a time: the refusal must roll back the batches before it, and no
    // statement of the other batch in flight may run after the rollback.
    const db = h.database.db.kysely;
    const refused = eanOf(500_000 + ((IMPORT_BATCH_SIZE + 5) % EANS));
    if (engine === 'postgres') {
      await sql`create function refuse_offer() returns trigger language plpgsql as $$
        begin raise exception 'refused by the test'; end $$`.execute(db);
      await sql`create trigger refuse_offer before insert on offers for each row
        when (new.ean = ${sql.lit(refused)} and new.remarks = ${sql.lit(`copy ${IMPORT_BATCH_SIZE + 5}`)})
        execute function refuse_offer()`.execute(db);
    } else {
      await sql`create trigger refuse_offer before insert on offers for each row
        when new.ean = ${sql.lit(refused)} and new.remarks = ${sql.lit(`copy ${IMPORT_BATCH_SIZE + 5}`)}
        begin select raise(abort, 'refused by the test'); end`.execute(db);
    }
    try {
      const before = await counts();
      await expect(importer().importChecked(checkedRows(Readable.from([csv()])), by)).rejects.toThrow(
        'refused by the test',
      );
      expect(await counts()).toEqual(before);
    } finally {
      await sql`drop trigger refuse_offer${sql.raw(engine === 'postgres' ? ' on offers' : '')}`.execute(db);
      if (engine === 'postgres') await sql`drop function refuse_offer()`.execute(db);
    }
  });

  it('a large file streams in whole, a second run changes nothing, and another node serves what it wrote', async () => {
    const other = readModelOver(h.database.db, 100_000);
    await other.start();
    const probe = [eanOf(500_000), eanOf(500_000 + EANS - 1)];
    expect((await other.published(probe)).json).toBe('[]');
    const progress: number[] = [];
    const first = await importer().importChecked(
      checkedRows(Readable.from([csv()])),
      by,
      (done) => progress.push(done),
      ROWS,
    );
    expect(first).toEqual({ imported: { rows: ROWS, created: ROWS, updated: 0, unchanged: 0 } });
    expect(progress).toEqual(Array.from({ length: ROWS / IMPORT_BATCH_SIZE }, (_, i) => (i + 1) * IMPORT_BATCH_SIZE));
    const written = await counts();
    expect(written).toMatchObject({ offers: ROWS, keys: ROWS, events: 2 * ROWS });

    await other.sync();
    const json = JSON.parse((await other.published(probe)).json) as { ean: string }[];
    expect(json).toHaveLength((2 * ROWS) / EANS);
    expect(json.map((offer) => offer.ean)).toEqual(
      expect.arrayContaining(probe.flatMap((ean) => Array<string>(ROWS / EANS).fill(ean))),
    );
    await other.stop();

    const second = await importer().importChecked(checkedRows(Readable.from([csv()])), by);
    expect(second).toEqual({ imported: { rows: ROWS, created: 0, updated: 0, unchanged: ROWS } });
    expect(await counts()).toEqual(written);
  });

  it('the change log names each EAN a small import changed, once; a large import tells readers to forget everything', async () => {
    // The app's read model prunes entries older than it keeps, and the import dates its own entries by
    // the harness's fixed clock: stopped, it leaves every entry for this test to read.
    await h.services.offers.readModel.stop();
    const db = h.database.db.kysely;
    const entries = async () =>
      (await db.selectFrom('offer_changes').select('ean').orderBy('id').execute()).map((entry) => entry.ean);
    const [one, two] = [eanOf(520_001), eanOf(520_002)];
    const small = [
      'ean,price,condition,status,remarks',
      `${one},5.50,good,published,a`,
      `${one},6.50,good,published,b`,
      `${two},7.50,good,published,c`,
    ].join('\n');
    const before = (await entries()).length;
    await importer().importChecked(checkedRows(Readable.from([small])), by);
    const smallEntries = (await entries()).slice(before);
    // PostgreSQL: the import writes its own entries at its end; SQLite: the row triggers write one a row.
    expect(smallEntries).toEqual(engine === 'postgres' ? [one, two] : [one, one, two]);

    // New offers or changed ones, whichever earlier tests left: each of the ROWS rows is a change.
    await importer().importChecked(checkedRows(Readable.from([csv(undefined, 'changed copy')])), by);
    const largeEntries = (await entries()).slice(before + smallEntries.length);
    if (engine === 'postgres') expect(largeEntries).toEqual(['*']);
    else expect(largeEntries).toHaveLength(ROWS);

    // The import's setting ended with its transaction: any other write is logged by the triggers again.
    await db.updateTable('offers').set({ price_cents: 999 }).where('ean', '=', two).execute();
    expect((await entries()).slice(-1)).toEqual([two]);
  });
});
