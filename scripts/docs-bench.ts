/** Writes the figures table (generated from the recorded results in bench/results/) into docs/performance.md. */
import { fileURLToPath } from 'node:url';
import { withFiguresTable } from '../bench/lib/figures.js';
import { writeGeneratedSection } from '../docs-tools/generated-section.js';

const results = fileURLToPath(new URL('../bench/results', import.meta.url));
writeGeneratedSection(
  fileURLToPath(new URL('../docs/performance.md', import.meta.url)),
  'figures table',
  'npm run docs:bench',
  (page) => withFiguresTable(page, results),
);
