/**
 * The layers docs/architecture.md states, held against the imports of src/: its table lists the folders
 * top to bottom, and no file may import a file of a folder listed above its own. No two files import
 * each other either. A new folder must be placed in the table first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

/** The folders (and root files) of the layers table, in its order. */
function declaredOrder(): string[] {
  const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = page.slice(page.indexOf('## The layers'));
  const rows = section.split('\n').filter((line) => /^\| \d\. /.test(line));
  return rows.flatMap((row) =>
    [...(row.split('|')[2] ?? '').matchAll(/`([a-z0-9-]+(?:\/|\.ts))`/g)].map((m) => m[1] ?? ''),
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The folder a file of src/ belongs to: its first folder, or its own name at the root (config.ts goes with config/). */
function placeOf(file: string, order: readonly string[]): string {
  const [first = '', second] = relative(SRC, file).split('/');
  if (second !== undefined) return `${first}/`;
  const folder = `${first.replace(/\.ts$/, '')}/`;
  return order.includes(folder) ? folder : first;
}

/** The files of src/ a file imports, by relative path. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1] ?? '');
  return specs
    .map((spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts'))
    .filter((path) => path.startsWith(SRC));
}

describe('the layers', () => {
  const order = declaredOrder();
  const files = sourceFiles(SRC);
  const imports = new Map(files.map((file) => [file, importsOf(file)]));

  it('every folder of src/ stands in the table of docs/architecture.md', () => {
    const places = new Set(files.map((file) => placeOf(file, order)));
    expect([...places].filter((place) => !order.includes(place)).sort()).toEqual([]);
  });

  it('no import climbs to a folder listed above its own', () => {
    const climbs = files.flatMap((file) =>
      (imports.get(file) ?? [])
        .filter((target) => order.indexOf(placeOf(target, order)) < order.indexOf(placeOf(file, order)))
        .map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`),
    );
    expect(climbs).toEqual([]);
  });

  it('no two files import each other', () => {
    const pairs = files.flatMap((file) =>
      (imports.get(file) ?? [])
        .filter((target) => target > file && (imports.get(target) ?? []).includes(file))
        .map((target) => `${relative(ROOT, file)} <-> ${relative(ROOT, target)}`),
    );
    expect(pairs).toEqual([]);
  });
});
