/**
 * The docs generators' one way to write: a page's text between its markers, from a render of the page;
 * `--check` only reports drift (exit 1), so a stale table is found without changing the tree.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** `render` answers the page with its section replaced, or undefined when the markers are missing. */
export function writeGeneratedSection(
  file: string,
  what: string,
  command: string,
  render: (page: string) => string | undefined,
): void {
  const current = readFileSync(file, 'utf8');
  const next = render(current);
  if (next === undefined) {
    console.error(`${file}: the ${what} markers are missing`);
    process.exit(1);
  }
  if (process.argv.includes('--check')) {
    if (next !== current) {
      console.error(`${file}: the ${what} is out of date; run ${command}`);
      process.exit(1);
    }
  } else if (next !== current) {
    writeFileSync(file, next);
    console.log(`updated ${file}`);
  } else {
    console.log(`${file} is up to date`);
  }
}
