/**
 * The bulk-import commands and the portal link, run in-process through runCli against a real
 * database (SQLite file / PostgreSQL schema) with captured stdout/stderr and a chosen TTY-ness.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IMPORT_BATCH_SIZE } from '../../src/offers/import.js';
import { cli, cliEnvironment } from '../support/cli.js';
import { ean13 } from '../support/ean.js';
import { describeEachEngine } from '../support/engines.js';
import { createHarness, type Harness } from '../support/harness.js';

describeEachEngine('CLI bulk import', (engine) => {
  let h: Harness;
  let restoreEnvironment = (): void => undefined;
  const dir = tmpdir();

  beforeAll(async () => {
    h = await createHarness(engine, {}, { file: true });
    restoreEnvironment = cliEnvironment(h, 'cli-import-admin-token-0123');
  }, 60_000);
  afterAll(async () => {
    restoreEnvironment();
    await h.close();
  });

  const file = async (name: string, content: string): Promise<string> => {
    const path = join(dir, `shelfmark-${engine}-${process.pid}-${name}`);
    await writeFile(path, content);
    return path;
  };
  const offerCount = async (): Promise<number> =>
    Number(
      (
        await h.database.db.kysely
          .selectFrom('offers')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('imports a 10,000-row CSV with a progress bar, and a second run of the same file changes nothing', async () => {
    const lines = ['ean,price,condition,status,remarks'];
    for (let i = 0; i < 10_000; i++)
      lines.push(
        `${ean13(`978${String(100000000 + (i % 2500)).slice(0, 9)}`)},${(5 + (i % 40) + 0.25).toFixed(2)},good,published,copy ${i}`,
      );
    const path = await file('offers-10k.csv', `${lines.join('\n')}\n`);

    const started = Date.now();
    const first = await cli(['offers', 'import', path], true);
    const seconds = (Date.now() - started) / 1000;
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('rows: 10000, created: 10000, updated: 0, unchanged: 0\n');
    expect(first.stderr).toMatch(/\rimporting \[#{30}\] 10000\/10000 100% \d+ rows\/s ETA 0s/);
    // The bar moves as batches are written: the first at one batch.
    const filled = (IMPORT_BATCH_SIZE / 10_000) * 30;
    expect(first.stderr).toMatch(
      new RegExp(
        `\\rimporting \\[#{${filled}}\\.{${30 - filled}}\\] ${IMPORT_BATCH_SIZE}/10000 ${IMPORT_BATCH_SIZE / 100}% \\d+ rows/s ETA \\d+s`,
      ),
    );
    expect(await offerCount()).toBe(10_000);
    const sample = await h.database.db.kysely
      .selectFrom('offers as o')
      .innerJoin('offer_import_keys as k', 'k.offer_id', 'o.id')
      .select(['k.import_key', 'o.ean', 'o.price_cents', 'o.remarks'])
      .where('o.remarks', 'in', ['copy 0', 'copy 2500', 'copy 9999'])
      .orderBy('o.remarks')
      .execute();
    const e0 = ean13('978100000000');
    expect(sample).toEqual([
      { import_key: `${e0}#1`, ean: e0, price_cents: 525, remarks: 'copy 0' },
      { import_key: `${e0}#2`, ean: e0, price_cents: 2525, remarks: 'copy 2500' },
      { import_key: `${ean13('978100002499')}#4`, ean: ean13('978100002499'), price_cents: 4425, remarks: 'copy 9999' },
    ]);
    console.info(`[cli import] ${engine}: 10,000 offers imported in ${seconds.toFixed(1)} s`);
    if (engine === 'postgres') {
      // The planner knows the imported rows at once: the server's next reads plan from them.
      const { rows } = await sql<{
        n: number;
      }>`select reltuples::int as n from pg_class where oid = 'offers'::regclass`.execute(h.database.db.kysely);
      expect(rows).toEqual([{ n: 10_000 }]);
    }

    const second = await cli(['offers', 'import', path]);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ rows: 10000, created: 0, updated: 0, unchanged: 10000 });
    // Not a terminal: plain progress lines, at most one a tenth: here one for each batch written.
    expect(second.stderr.split('\n').filter((line) => line.startsWith('importing: '))).toHaveLength(
      10_000 / IMPORT_BATCH_SIZE,
    );
    expect(second.stderr).toContain('importing: 10000/10000 rows (100%)');
    expect(second.stderr).not.toContain('\r');
    expect(await offerCount()).toBe(10_000);

    lines[1] = lines[1]?.replace(',5.25,', ',6.00,') ?? '';
    const changed = await cli(['offers', 'import', await file('offers-10k-changed.csv', lines.join('\n')), '--json']);
    expect(JSON.parse(changed.stdout)).toEqual({ rows: 10000, created: 0, updated: 1, unchanged: 9999 });
    expect(await offerCount()).toBe(10_000);
  }, 90_000);

  it('reports every bad row by line and imports nothing', async () => {
    const before = await offerCount();
    const good = ean13('978900000001');
    const path = await file(
      'offers-bad.csv',
      [
        'ean,price,condition,key',
        `${good},12.50,good,a`,
        '9789000000019,12.50,good,b',
        `${good},12.505,good,c`,
        `${good},twelve,good,d`,
        `${good},3.00,mint,e`,
        `${good},4.00,good,a`,
        `${good},5.00,acceptable,f`,
      ].join('\n'),
    );
    const result = await cli(['offers', 'import', path]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').filter((line) => line.startsWith('line '))).toEqual([
      'line 3: ean "9789000000019" check digit should be 2',
      'line 4: price must have at most 2 decimals, got 12.505',
      'line 5: price "twelve" is not an amount in euros like 12.50',
      'line 6: condition "mint" is not one of excellent, good, acceptable',
      'line 7: key "a" is already used on line 2',
    ]);
    expect(result.stderr).toContain('5 bad rows');
    expect(result.stderr).toContain('nothing was imported');
    expect(await offerCount()).toBe(before);

    const header = await cli(['offers', 'import', await file('offers-header.csv', 'isbn,price\n1,2\n')]);
    expect(header.code).toBe(1);
    expect(header.stderr).toContain('line 1: missing column(s) ean, condition; unknown column(s) isbn');
    const missing = await cli(['offers', 'import', join(dir, 'does-not-exist.csv')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read');
  });

  it('imports lists with their target status, idempotently, and refuses a file with a bad entry', async () => {
    const school = await h.asAdmin().post('/api/admin/v1/schools', { name: 'Hogeschool Amstelland', type: 'HBO' });
    const schoolId = school.json<{ identifier: string }>().identifier;
    const lists = [
      {
        school: schoolId,
        name: 'ICT jaar 1',
        tags: ['Amsterdam', '2026-2027'],
        items: [{ ean: ean13('978900189144'), title: 'Wiskunde' }],
        status: 'published',
      },
      { school: schoolId, name: 'ICT jaar 2', tags: ['Amsterdam', '2026-2027'] },
    ];
    const path = await file('lists.json', JSON.stringify(lists, null, 2));
    const first = await cli(['lists', 'import', path, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ rows: 2, created: 2, updated: 0, unchanged: 0, statusChanged: 1 });
    const rows = await h.database.db.kysely
      .selectFrom('lists')
      .select(['name', 'status', 'tags'])
      .orderBy('name')
      .execute();
    expect(rows).toEqual([
      { name: 'ICT jaar 1', status: 'published', tags: '["Amsterdam","2026-2027"]' },
      { name: 'ICT jaar 2', status: 'created', tags: '["Amsterdam","2026-2027"]' },
    ]);
    // The school and list events (the file's offer imports before this one announce their offers too).
    const events = async () =>
      (await h.database.db.kysely.selectFrom('events').select('name').where('resource', '!=', 'offer').execute())
        .map((e) => e.name)
        .sort();
    expect(await events()).toEqual([
      'list.created',
      'list.created',
      'list.published',
      'list.status',
      'list.status',
      'list.status',
      'school.created',
    ]);

    const again = await cli(['lists', 'import', path, '--json']);
    expect(JSON.parse(again.stdout)).toEqual({ rows: 2, created: 0, updated: 0, unchanged: 2, statusChanged: 0 });
    expect(await events()).toHaveLength(7);

    const bad = [
      lists[1],
      { school: 'f'.repeat(32), name: 'Nowhere' },
      { school: schoolId, name: 'Old', status: 'retired' },
      { name: 'No school' },
    ];
    const refused = await cli(['lists', 'import', await file('lists-bad.json', JSON.stringify(bad, null, 2))]);
    expect(refused.code).toBe(1);
    // Each problem one sentence, with the entry's position (and the line it starts on).
    expect(refused.stderr.split('\n').filter((line) => line.startsWith('entry '))).toEqual([
      `entry 2 (line 10): school "${'f'.repeat(32)}" does not exist; the schools and their identifiers: GET /api/lml/v1/schools`,
      'entry 3 (line 14): status "retired" is not a list status',
      'entry 4 (line 19): school is missing',
    ]);
    expect(refused.stderr).toContain('3 entries of');
    expect(refused.stderr).toContain('cannot be imported, so nothing was imported');
    expect(refused.stderr).not.toContain('row');
    expect(await h.database.db.kysely.selectFrom('lists').select('name').execute()).toHaveLength(2);
  });

  it('a missing file is a short error with its command usage, not every command', async () => {
    const path = join(dir, 'shelfmark-does-not-exist.csv');
    const missing = await cli(['offers', 'import', path]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `cannot read ${path}: ENOENT: no such file or directory, open '${path}'\n` +
        'Usage: shelfmark offers import <file.csv> [--json]\n' +
        'More: shelfmark offers import --help\n',
    );
    expect(missing.stderr).not.toContain('Usage: shelfmark <command>');
  });

  it('lists import with an unknown school suggests the closest names, or says where the schools are', async () => {
    const school = await h.asAdmin().post('/api/admin/v1/schools', { name: 'Het Lyceum Noord', type: 'VO' });
    const id = school.json<{ identifier: string }>().identifier;
    const entries = [
      { school: 'Het Lyceum Nord', name: 'Typo' },
      { school: 'het lyceum noord', name: 'By name' },
      { school: 'Zzzzzzzzzzzzzzzzzzzzzz', name: 'Far off' },
    ];
    const refused = await cli(['lists', 'import', await file('lists-school.json', JSON.stringify(entries, null, 2))]);
    expect(refused.code).toBe(1);
    const lines = refused.stderr.split('\n').filter((line) => line.startsWith('entry '));
    expect(lines[0]).toContain(`school "Het Lyceum Nord" does not exist; closest: "Het Lyceum Noord" (${id})`);
    expect(lines[0]).toContain('GET /api/lml/v1/schools');
    expect(lines[1]).toBe(`entry 2 (line 6): school "het lyceum noord" is a name; give the school's identifier: ${id}`);
    expect(lines[2]).toBe(
      'entry 3 (line 10): school "Zzzzzzzzzzzzzzzzzzzzzz" does not exist; the schools and their identifiers: GET /api/lml/v1/schools',
    );
  });

  it('prints a portal link, per-command help and listings as JSON', async () => {
    const client = await h.asAdmin().post('/api/admin/v1/clients', { name: 'Link shop' });
    const id = client.json<{ id: string }>().id;
    const link = await cli(['clients', 'portal-link', id]);
    expect(link.code).toBe(0);
    const body = JSON.parse(link.stdout) as { path: string; url: string; expiresAt: string };
    const token = body.path.split('#')[1] ?? '';
    expect((await h.anonymous().post('/portal/api/sign-in', { token })).statusCode).toBe(200);
    expect((await cli(['clients', 'portal-link', 'cli_missing'])).code).toBe(1);

    const help = await cli(['offers', 'import', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: shelfmark offers import <file.csv>');
    const listed = await cli(['clients', 'list', '--json'], true);
    expect(JSON.parse(listed.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Link shop' })]));
    const table = await cli(['clients', 'list'], true);
    expect(table.stdout.split('\n')[0]).toMatch(/^id\s+name\s+clientId\s+status\s+scopes\s+createdAt$/);
    expect(table.stdout).toContain('Link shop');
  });

  it('marks the lists it creates as imported, and says each problem of an entry once', async () => {
    const school = await h.asAdmin().post('/api/admin/v1/schools', { name: 'Lyceum Imported', type: 'VO' });
    const schoolId = school.json<{ identifier: string }>().identifier;
    const path = await file('lists-imported.json', JSON.stringify([{ school: schoolId, name: 'Imported list' }]));
    expect((await cli(['lists', 'import', path, '--json'])).code).toBe(0);
    const row = await h.database.db.kysely
      .selectFrom('lists')
      .select('identifier')
      .where('name', '=', 'Imported list')
      .executeTakeFirstOrThrow();
    const read = await h.asAdmin().get(`/api/admin/v1/lists/${row.identifier}`);
    expect(read.json<{ imported: boolean }>().imported).toBe(true);

    const bad = [{ school: schoolId, name: 'Bad EAN', items: [{ ean: '123', title: 'Short' }], extra: 1 }];
    const refused = await cli(['lists', 'import', await file('lists-ean.json', JSON.stringify(bad, null, 2))]);
    expect(refused.code).toBe(1);
    const lines = refused.stderr.split('\n').filter((line) => line.startsWith('entry '));
    expect(lines).toEqual(['entry 1 (line 2): extra is not a field of a list']);
    const badEan = [{ school: schoolId, name: 'Bad EAN', items: [{ ean: '123', title: 'Short' }] }];
    const ean = await cli(['lists', 'import', await file('lists-ean2.json', JSON.stringify(badEan, null, 2))]);
    const eanLines = ean.stderr.split('\n').filter((line) => line.startsWith('entry '));
    expect(eanLines).toHaveLength(1);
    expect(eanLines[0]).toMatch(/^entry 1 \(line 2\): items\/0\/ean 123/);
    // The reason is said once: no "summary: the same reason again" repetition.
    expect((eanLines[0]?.match(/items\/0\/ean/g) ?? []).length).toBe(1);
  });

  it('accepts the client id a user sees wherever an <id> is asked for, and prints an absolute portal link', async () => {
    const created = await h.asAdmin().post('/api/admin/v1/clients', { name: 'Public id shop' });
    const { id, clientId } = created.json<{ id: string; clientId: string }>();
    const link = await cli(['clients', 'portal-link', clientId]);
    expect(link.code, link.stderr).toBe(0);
    const body = JSON.parse(link.stdout) as { clientId: string; url: string };
    expect(body.clientId).toBe(clientId);
    expect(body.url).toMatch(/^http:\/\/[^/]+:\d+\/portal\/sign-in#/);

    process.env.PUBLIC_BASE_URL = 'https://shelfmark.example.org/';
    try {
      const configured = JSON.parse((await cli(['clients', 'portal-link', id])).stdout) as { url: string };
      expect(configured.url).toMatch(/^https:\/\/shelfmark\.example\.org\/portal\/sign-in#/);
    } finally {
      delete process.env.PUBLIC_BASE_URL;
    }

    const rotated = await cli(['clients', 'rotate-webhook-secret', clientId]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const unknown = await cli(['clients', 'portal-link', 'smc_nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('"smc_nobody"');
    expect(unknown.stderr).toContain('client id');
    expect(unknown.stderr).toContain('internal id');
  });

  it('generates one usage text from the command table: every command listed once, each with its own help', async () => {
    const usage = (await cli(['--help'])).stdout;
    const { COMMANDS } = await import('../../src/cli/commands/index.js');
    for (const command of COMMANDS) {
      expect(
        usage.split('\n').filter((line) => line.startsWith(`  ${command.name} `) || line === `  ${command.name}`),
      ).toHaveLength(1);
      const help = await cli([...command.name.split(' '), '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout.startsWith(`Usage: shelfmark ${command.name}`)).toBe(true);
    }
  });
});
