/**
 * Finds, in the tracked tree, the words that tell how the product was developed rather than what it is:
 * tracker items, development machines and sessions, dates of the work, commits.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const SCOPE = [
  'src',
  'test',
  'docs',
  'docs-tools',
  'packages',
  'bench',
  'scripts',
  'examples',
  'README.md',
  'vitest.config.ts',
];
/** Recorded results name the host they ran on; binary files have no words. */
const SKIPPED = /^bench\/results\/|\.(png|jpe?g|gif|ico|woff2?|sqlite)$/;

/** Each rule: what it catches, the pattern. The patterns are written so that they do not match themselves. */
export const RULES: ReadonlyArray<readonly [string, RegExp]> = [
  ['a tracker item', /\b[Ii]ssues?[ -]#?\d+/],
  ['a tracker item as a test title', /\b(?:it|test|describe)\((['"`])\d+\.\d+\b/],
  [
    'a tracker item heading a title',
    /(['"`])\d{1,2}\.\d{1,2} (?!(?:ms|s|kB|MB|GB|seconds?|minutes?|hours?|days?|points?|rows?)\b)[a-z]{3,}/,
  ],
  ['a development machine', /\b(?:this|that|the shared|a quiet|a slower|a faster|a loaded|[0-9]+-core) machine\b/i],
  ['a processor model', /\b(?:AMD[ ]EPYC|Intel(?:\(R\))? Xeon|Ryze[n])\b/],
  [
    'a work session',
    /\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|other|this) sessions?\b(?! (?:cookie|token|id|row|store|table|of the|is|was signed|expires))/i,
  ],
  [
    'a date of the work',
    /\b(?:on|since|of|before|after|until|at) 20\d\d-\d\d-\d\d\b(?!T)|\b(?:January|February|March|April|May|June|July|August|September|October|November|December) 20\d\d\b/,
  ],
  ['a commit', /\b(?:commit|at|since|of|in|run of|build of)\s+(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,12}\b/],
];

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--', ...SCOPE], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\0').filter((file) => file !== '' && !SKIPPED.test(file));
}

export function findings(): string[] {
  const found: string[] = [];
  for (const file of trackedFiles()) {
    let text: string;
    try {
      text = readFileSync(join(ROOT, file), 'utf8');
    } catch {
      continue; // listed but removed from the work tree
    }
    text.split('\n').forEach((line, index) => {
      for (const [what, pattern] of RULES) {
        const match = pattern.exec(line);
        if (match !== null) found.push(`${file}:${index + 1}: ${what}: "${match[0]}"`);
      }
    });
  }
  return found;
}
