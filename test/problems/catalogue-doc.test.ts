import { describe } from 'vitest';
import { problemsTable, withProblemsTable } from '../../docs-tools/problems-table.js';
import { PROBLEMS } from '../../src/problems/catalogue.js';
import { itHasARowPerEntry, itHoldsTheRenderedTable } from '../support/docs-table.js';

describe('problems: one catalogue', () => {
  itHoldsTheRenderedTable('docs/integrating.md', 'the problem catalogue', withProblemsTable, 'docs:problems');

  itHasARowPerEntry(
    'names every problem code once, with its status, title and type',
    problemsTable,
    Object.keys(PROBLEMS).length,
    1,
    ['', '`invalid-ean`', '`400`', 'One or more EAN codes are invalid', '`/problems/invalid-ean`', ''],
  );
});
