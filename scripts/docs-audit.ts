/** Writes the audit catalogue table (rendered from src/audit/catalogue.ts) into docs/operating/operators-and-audit.md. */
import { fileURLToPath } from 'node:url';
import { withCatalogueTable } from '../docs-tools/audit-table.js';
import { writeGeneratedSection } from '../docs-tools/generated-section.js';

writeGeneratedSection(
  fileURLToPath(new URL('../docs/operating/operators-and-audit.md', import.meta.url)),
  'audit catalogue',
  'npm run docs:audit',
  withCatalogueTable,
);
