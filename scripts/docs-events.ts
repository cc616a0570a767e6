/** Writes the events table (rendered from src/events/catalogue.ts) into docs/webhooks.md. */
import { fileURLToPath } from 'node:url';
import { withEventsTable } from '../docs-tools/events-table.js';
import { writeGeneratedSection } from '../docs-tools/generated-section.js';

writeGeneratedSection(
  fileURLToPath(new URL('../docs/webhooks.md', import.meta.url)),
  'events table',
  'npm run docs:events',
  withEventsTable,
);
