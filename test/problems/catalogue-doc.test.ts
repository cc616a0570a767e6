import { describe, expect, it } from 'vitest';
import { problemsTable, withProblemsTable } from '../../docs-tools/problems-table.js';
import { PROBLEMS } from '../../src/problems/catalogue.js';
import { itHoldsTheRenderedTable } from '../support/docs-table.js';

describe('problems: one catalogue', () => {
  itHoldsTheRenderedTable('docs/integrating.md', 'the problem catalogue', withProblemsTable, 'docs:problems');

  it('names every problem code once, with its status, title and type', () => {
    const rows = problemsTable().split('\n').slice(2);
    expect(rows).toHaveLength(Object.keys(PROBLEMS).length);
    expect(rows[1]?.split('|').map((cell) => cell.trim())).toEqual([
      '',
      '`invalid-ean`',
      '`400`',
      'One or more EAN codes are invalid',
      '`/problems/invalid-ean`',
      '',
    ]);
  });
});
