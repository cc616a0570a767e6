import { describe, expect, it } from 'vitest';
import { catalogueTable, withCatalogueTable } from '../../docs-tools/audit-table.js';
import { AUDIT_ACTIONS } from '../../src/audit/catalogue.js';
import { itHoldsTheRenderedTable } from '../support/docs-table.js';

describe('audit: one catalogue', () => {
  itHoldsTheRenderedTable('docs/operating/operators-and-audit.md', 'the catalogue', withCatalogueTable, 'docs:audit');

  it('names every action once, with its target and who causes it', () => {
    const rows = catalogueTable().split('\n').slice(2);
    expect(rows).toHaveLength(Object.keys(AUDIT_ACTIONS).length);
    expect(rows[0]?.split('|').map((cell) => cell.trim())).toEqual([
      '',
      '`client.created`',
      'client',
      'operator',
      'An API client was created: `name`, `scopes`, `status`. Its secrets are never recorded.',
      '',
    ]);
  });
});
