import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogueTable, withCatalogueTable } from '../../docs-tools/audit-table.js';
import { AUDIT_ACTIONS } from '../../src/audit/catalogue.js';

const docs = join(import.meta.dirname, '../../docs/operating/operators-and-audit.md');

describe('audit: one catalogue', () => {
  it('the table in docs/operating/operators-and-audit.md is the one the catalogue renders (npm run docs:audit)', () => {
    const text = readFileSync(docs, 'utf8');
    expect(withCatalogueTable(text), 'run npm run docs:audit').toBe(text);
  });

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
