/**
 * Writes the configuration table (rendered from src/config/schema.ts) into
 * docs/operating/configuration.md between its markers. `--check` only reports drift (exit 1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withConfigTable } from '../src/config/table.js';

const file = fileURLToPath(new URL('../docs/operating/configuration.md', import.meta.url));
const current = readFileSync(file, 'utf8');
const next = withConfigTable(current);
if (next === undefined) {
  console.error(`${file}: the config table markers are missing`);
  process.exit(1);
}
if (process.argv.includes('--check')) {
  if (next !== current) {
    console.error(`${file}: the configuration table is out of date; run npm run docs:config`);
    process.exit(1);
  }
} else if (next !== current) {
  writeFileSync(file, next);
  console.log(`updated ${file}`);
} else {
  console.log(`${file} is up to date`);
}
