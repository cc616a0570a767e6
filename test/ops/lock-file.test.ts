/**
 * `npm install` on a fresh clone leaves package-lock.json as committed. npm resolves the
 * tree again from the manifests (the root's and every workspace's) and the lock; any difference it
 * would write (a platform package the lock lacks, a workspace version out of step) shows here. The
 * lock-only install reads the registry's metadata through npm's cache and installs nothing.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

it('npm install leaves the committed package-lock.json unchanged', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shelfmark-lock-'));
  try {
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, file), join(dir, file));
    for (const workspace of readdirSync(join(ROOT, 'packages'))) {
      mkdirSync(join(dir, 'packages', workspace), { recursive: true });
      copyFileSync(join(ROOT, 'packages', workspace, 'package.json'), join(dir, 'packages', workspace, 'package.json'));
    }
    const before = readFileSync(join(dir, 'package-lock.json'), 'utf8');
    await run(
      'npm',
      ['install', '--package-lock-only', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
      { cwd: dir, env: { ...process.env, npm_config_update_notifier: 'false' } },
    );
    expect(readFileSync(join(dir, 'package-lock.json'), 'utf8')).toBe(before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
