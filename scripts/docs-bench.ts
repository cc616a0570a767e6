/**
 * Writes the figures table (generated from the recorded results in bench/results/) into
 * docs/performance.md between its markers. `--check` only reports drift (exit 1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withFiguresTable } from '../bench/lib/figures.js';

const file = fileURLToPath(new URL('../docs/performance.md', import.meta.url));
const results = fileURLToPath(new URL('../bench/results', import.meta.url));
const current = readFileSync(file, 'utf8');
const next = withFiguresTable(current, results);
if (next === undefined) {
  console.error(`${file}: the figures table markers are missing`);
  process.exit(1);
}
if (process.argv.includes('--check')) {
  if (next !== current) {
    console.error(`${file}: the figures table is out of date; run npm run docs:bench`);
    process.exit(1);
  }
} else if (next !== current) {
  writeFileSync(file, next);
  console.log(`updated ${file}`);
} else {
  console.log(`${file} is up to date`);
}
