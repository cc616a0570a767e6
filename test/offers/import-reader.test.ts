/**
 * The offers file read and checked on a thread of its own gives the import exactly the rows that
 * reading it on the importing thread gives, in the file's order, bad rows included; it stops with
 * the import, and a thread that cannot read the file fails the import instead of ending it short.
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CheckedRow, checkedRows } from '../../src/offers/import-csv.js';
import { checkedRowsOnThread } from '../../src/offers/import-reader.js';
import { eanOf } from '../support/ean.js';

const dir = mkdtempSync(join(tmpdir(), 'shelfmark-import-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** More rows than the thread posts ahead of its reader, two of them bad. */
function offersFile(rows: number): string {
  const lines = ['ean,price,condition,status,remarks,key'];
  for (let i = 0; i < rows; i++) {
    const price = i === 7 ? 'cheap' : `${1 + (i % 90)}.25`;
    const key = i === rows - 1 ? 'row-1' : `row-${i}`;
    lines.push(`${eanOf(600_000 + (i % 5000))},${price},good,published,"copy, ${i}",${key}`);
  }
  const path = join(dir, `offers-${rows}.csv`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

async function all(rows: AsyncIterable<CheckedRow>): Promise<CheckedRow[]> {
  const found: CheckedRow[] = [];
  for await (const row of rows) found.push(row);
  return found;
}

describe('the offers file read on a thread', () => {
  it('gives every row as reading it here does, in order, bad rows with their lines', async () => {
    const path = offersFile(12_000);
    const here = await all(checkedRows(createReadStream(path)));
    const onThread = await all(checkedRowsOnThread(path));
    expect(onThread).toHaveLength(12_000);
    expect(onThread).toEqual(here);
    expect(onThread.filter((row) => 'error' in row)).toEqual([
      { error: { line: 9, reason: 'price "cheap" is not an amount in euros like 12.50' } },
      { error: { line: 12_001, reason: 'key "row-1" is already used on line 3' } },
    ]);
  });

  it('stops its thread when the import stops reading', async () => {
    const rows = checkedRowsOnThread(offersFile(12_000));
    const first = await rows.next();
    expect(first.value).toMatchObject({ row: { line: 2, key: 'row-0' } });
    // return() ends the generator only once the thread has been terminated.
    await expect(rows.return(undefined)).resolves.toEqual({ done: true, value: undefined });
  });

  it('fails, rather than ending short, when the thread cannot read the file', async () => {
    await expect(all(checkedRowsOnThread(join(dir, 'missing.csv')))).rejects.toThrow(/ENOENT|stopped/);
  });
});
