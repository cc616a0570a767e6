/** Writes the problem codes table (rendered from src/problems/catalogue.ts) into docs/integrating.md. */
import { fileURLToPath } from 'node:url';
import { writeGeneratedSection } from '../docs-tools/generated-section.js';
import { withProblemsTable } from '../docs-tools/problems-table.js';

writeGeneratedSection(
  fileURLToPath(new URL('../docs/integrating.md', import.meta.url)),
  'problems table',
  'npm run docs:problems',
  withProblemsTable,
);
