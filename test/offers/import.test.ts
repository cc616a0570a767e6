/**
 * The offers import reads, checks and writes a file as it streams in, in one transaction: a large
 * file is all there or not there at all, whatever row is bad, and every node's read model follows
 * what it wrote.
 */
import { Readable } from 'node:stream';
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
function csv(bad?: { row: number; price: string }): string {
  const lines = ['ean,price,condition,status,remarks'];
  for (let i = 0; i < ROWS; i++) {
    const price = bad?.row === i ? bad.price : `${5 + (i % 40)}.50`;
    lines.push(`${eanOf(500_000 + (i % EANS))},${price},good,published,copy ${i}`);
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

  it('a large file streams in whole, a second run changes nothing, and another node serves what it wrote', async () => {
    const other = readModelOver(h.database.db, 100_000);
    await other.start();
    const probe = [eanOf(500_000), eanOf(500_000 + EANS - 1)];
    expect(await other.publishedJson(probe)).toBe('[]');
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
    const json = JSON.parse(await other.publishedJson(probe)) as { ean: string }[];
    expect(json).toHaveLength((2 * ROWS) / EANS);
    expect(json.map((offer) => offer.ean)).toEqual(
      expect.arrayContaining(probe.flatMap((ean) => Array<string>(ROWS / EANS).fill(ean))),
    );
    await other.stop();

    const second = await importer().importChecked(checkedRows(Readable.from([csv()])), by);
    expect(second).toEqual({ imported: { rows: ROWS, created: 0, updated: 0, unchanged: ROWS } });
    expect(await counts()).toEqual(written);
  });
});
