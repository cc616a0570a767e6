import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/**
 * A docs page holds a table its `npm run <script>` writes from the code: the page must hold the table
 * as the code renders it now, so a change on either side without the script fails here.
 */
export function itHoldsTheRenderedTable(
  page: string,
  renderer: string,
  withTable: (text: string) => string | undefined,
  script: string,
): void {
  it(`the table in ${page} is the one ${renderer} renders (npm run ${script})`, () => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    expect(withTable(text), `run npm run ${script}`).toBe(text);
  });
}

/**
 * A generated table has one row per entry of its catalogue (below its header and divider rows), and
 * the row at `index` reads `cells`, the empty first and last being the table's outer pipes.
 */
export function itHasARowPerEntry(
  name: string,
  table: () => string,
  entries: number,
  index: number,
  cells: readonly string[],
): void {
  it(name, () => {
    const rows = table().split('\n').slice(2);
    expect(rows).toHaveLength(entries);
    expect(rows[index]?.split('|').map((cell) => cell.trim())).toEqual(cells);
  });
}
