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
