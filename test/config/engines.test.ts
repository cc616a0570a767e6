/**
 * `npm install` on the oldest Node that package.json's `engines` admits prints no
 * EBADENGINE, i.e. every package in the lock file accepts that Node version.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// semver is npm's own range logic (present in the tree through many dependencies).
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};
const root = join(import.meta.dirname, '..', '..');
const read = <T>(file: string) => JSON.parse(readFileSync(join(root, file), 'utf8')) as T;

describe('engines', () => {
  it('every locked package accepts the oldest Node that package.json admits', () => {
    const oldest = semver.minVersion(read<{ engines: { node: string } }>('package.json').engines.node)?.version ?? '';
    const lock = read<{ packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> }>(
      'package-lock.json',
    );
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => {
        const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return range !== undefined && !semver.satisfies(oldest, range);
      })
      .map(([path, entry]) => `${path}@${entry.version ?? '?'}`);
    expect(oldest).toMatch(/^20\./);
    expect(refusing).toEqual([]);
  });
});
