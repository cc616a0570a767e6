/**
 * Writes the audit catalogue table (rendered from src/audit/catalogue.ts) into
 * docs/operating/operators-and-audit.md between its markers. `--check` only reports drift (exit 1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withCatalogueTable } from '../src/audit/catalogue-table.js';

const file = fileURLToPath(new URL('../docs/operating/operators-and-audit.md', import.meta.url));
const current = readFileSync(file, 'utf8');
const next = withCatalogueTable(current);
if (next === undefined) {
  console.error(`${file}: the audit catalogue markers are missing`);
  process.exit(1);
}
if (process.argv.includes('--check')) {
  if (next !== current) {
    console.error(`${file}: the audit catalogue is out of date; run npm run docs:audit`);
    process.exit(1);
  }
} else if (next !== current) {
  writeFileSync(file, next);
  console.log(`updated ${file}`);
} else {
  console.log(`${file} is up to date`);
}
