/** Writes the limits table (rendered from src/limits/catalogue.ts) into docs/operating/limits.md. */
import { fileURLToPath } from 'node:url';
import { writeGeneratedSection } from '../docs-tools/generated-section.js';
import { withLimitsTable } from '../docs-tools/limits-table.js';

writeGeneratedSection(
  fileURLToPath(new URL('../docs/operating/limits.md', import.meta.url)),
  'limits table',
  'npm run docs:limits',
  withLimitsTable,
);
