/** Writes the configuration table (rendered from src/config/schema.ts) into docs/operating/configuration.md. */
import { fileURLToPath } from 'node:url';
import { withConfigTable } from '../docs-tools/config-table.js';
import { writeGeneratedSection } from '../docs-tools/generated-section.js';

writeGeneratedSection(
  fileURLToPath(new URL('../docs/operating/configuration.md', import.meta.url)),
  'configuration table',
  'npm run docs:config',
  withConfigTable,
);
