import { describe } from 'vitest';
import { catalogueTable, withCatalogueTable } from '../../docs-tools/audit-table.js';
import { AUDIT_ACTIONS } from '../../src/audit/catalogue.js';
import { itHasARowPerEntry, itHoldsTheRenderedTable } from '../support/docs-table.js';

describe('audit: one catalogue', () => {
  itHoldsTheRenderedTable('docs/operating/operators-and-audit.md', 'the catalogue', withCatalogueTable, 'docs:audit');

  itHasARowPerEntry(
    'names every action once, with its target and who causes it',
    catalogueTable,
    Object.keys(AUDIT_ACTIONS).length,
    0,
    [
      '',
      '`client.created`',
      'client',
      'operator',
      'An API client was created: `name`, `scopes`, `status`. Its secrets are never recorded.',
      '',
    ],
  );
});
