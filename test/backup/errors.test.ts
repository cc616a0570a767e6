/**
 * `shelfmark backup` when no backup can be made: a clear message on stderr, a non-zero exit code
 * (1: no backup made; 2: bad usage or configuration) and nothing left behind — no partial file, no
 * replaced file, no database created where there was none. Run in-process through runCli (the compiled
 * command runs in restore.test.ts), so these need no build.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { cli } from '../support/cli.js';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../support/engines.js';

let root: string;
let url: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'shelfmark-backup-errors-'));
  url = `sqlite:${join(root, 'data/shelfmark.sqlite')}`;
  const db = await connectDatabase(url);
  await migrateToLatest(db);
  await db.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** `shelfmark <args>` in-process with these environment variables set for the run. */
async function shelfmark(args: string[], env: Record<string, string>) {
  const saved = { ...process.env };
  Object.assign(process.env, { LOG_LEVEL: 'silent', SEED: 'none' }, env);
  try {
    return await cli(args);
  } finally {
    process.env = saved;
  }
}

const backup = (args: string[], databaseUrl = url) => shelfmark(['backup', ...args], { DATABASE_URL: databaseUrl });
/** Files in a directory that are not `keep`: a failed backup leaves none. */
const leftovers = (dir: string, keep: string[] = []) => readdirSync(dir).filter((name) => !keep.includes(name));

describe('shelfmark backup refuses clearly', () => {
  it('does not replace an existing file without --force, and does with it', async () => {
    const dir = join(root, 'existing');
    mkdirSync(dir);
    const file = join(dir, 'shelfmark.sqlite');
    writeFileSync(file, 'an older backup');
    const refused = await backup([file]);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr.trim()).toBe(`backup failed, no backup made: ${file} exists: pass --force to replace it`);
    expect(readFileSync(file, 'utf8')).toBe('an older backup');
    expect(leftovers(dir, ['shelfmark.sqlite'])).toEqual([]);

    const forced = await backup([file, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(file).subarray(0, 16).toString()).toBe('SQLite format 3\0');
    // It holds signing keys and webhook secrets: readable by its owner only.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(leftovers(dir, ['shelfmark.sqlite'])).toEqual([]);
  });

  it('says when the backup cannot be written where it was asked', async () => {
    // Root may write anywhere a mode allows nothing: /proc takes no new files from anyone.
    const asRoot = process.getuid?.() === 0;
    const locked = join(root, 'locked');
    mkdirSync(locked);
    if (!asRoot) chmodSync(locked, 0o500);
    const dir = asRoot ? '/proc' : locked;
    const unwritable = await backup([join(dir, 'shelfmark.sqlite')]);
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(
      new RegExp(
        `^backup failed, no backup made: cannot write ${dir}/shelfmark.sqlite: no file can be created in ${dir} \\(.+\\)\\n$`,
      ),
    );
    chmodSync(locked, 0o700);

    const missingDir = await backup([join(root, 'no/such/dir/shelfmark.sqlite')]);
    expect(missingDir.code).toBe(1);
    expect(missingDir.stderr).toContain(`the directory ${join(root, 'no/such/dir')} does not exist`);

    const directory = await backup([root]);
    expect(directory.code).toBe(1);
    expect(directory.stderr).toContain(`${root} is a directory: name the backup file`);
  });

  it('says when there is no database to back up, and creates none', async () => {
    const dir = join(root, 'missing');
    mkdirSync(dir);
    const missing = join(root, 'nowhere/shelfmark.sqlite');
    const ran = await backup([join(dir, 'backup.sqlite')], `sqlite:${missing}`);
    expect(ran.code).toBe(1);
    expect(ran.stderr.trim()).toBe(
      `backup failed, no backup made: no database at ${missing}: check DATABASE_URL (sqlite:<path>)`,
    );
    expect(existsSync(missing)).toBe(false);
    expect(leftovers(dir)).toEqual([]);

    const notOurs = join(root, 'notes.txt');
    writeFileSync(notOurs, 'not a database at all, just some text that is long enough to have a header');
    const notADatabase = await backup([join(dir, 'backup.sqlite')], `sqlite:${notOurs}`);
    expect(notADatabase.code).toBe(1);
    expect(notADatabase.stderr).toContain(`backup failed, no backup made: cannot open the database ${notOurs}`);
    expect(leftovers(dir)).toEqual([]);

    const memory = await backup([join(dir, 'backup.sqlite')], 'sqlite::memory:');
    expect(memory.code).toBe(2);
    expect(memory.stderr).toContain('in-memory SQLite database');
  });

  it('is bad usage without a file', async () => {
    const ran = await backup([]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/^missing backup file\n/);
  });
});

describe.skipIf(!postgresAvailable && process.env.CI !== 'true')(
  'shelfmark backup on PostgreSQL without pg_dump',
  () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await freshDatabase('postgres');
    });
    afterAll(async () => database?.drop());

    it('gives the exact pg_dump command for the configured schema instead', async () => {
      const dir = join(root, 'pg');
      mkdirSync(dir);
      const file = join(dir, 'shelfmark.dump');
      // A test database of its own, in its default schema unless the URL names another.
      const schema = new URL(database.url).searchParams.get('options')?.replace('-c search_path=', '') ?? 'public';
      const ran = await shelfmark(['backup', file], { DATABASE_URL: database.url, PATH: '/nonexistent' });
      expect(ran.code).toBe(1);
      expect(ran.stderr).toContain('backup failed, no backup made: pg_dump is not installed (or not on PATH)');
      expect(ran.stderr).toContain(`pg_dump --format=custom '--schema="${schema}"' --no-password --file=${file} `);
      expect(leftovers(dir)).toEqual([]);
    });
  },
);
