import { expect, it } from 'vitest';
import { ChangeLogStore } from '../../src/db/change-log.js';
import { DIALECTS } from '../../src/db/database.js';
import { SchoolDirectory } from '../../src/lml/school-directory.js';
import { type DirectoryEntry, SchoolStore } from '../../src/lml/school-store.js';
import { describeEachEngine } from '../support/engines.js';
import { openTransaction } from '../support/open-transaction.js';
import { useHarness } from '../support/use-harness.js';
import { createSchool } from './support.js';

const byName = (a: DirectoryEntry, b: DirectoryEntry): number => a.name.localeCompare(b.name, 'nl');

describeEachEngine('school directory (the structure tree’s first level)', (engine) => {
  const h = useHarness(engine, { client: { name: 'Reader', scopes: ['lml:read'] } });

  const changeLog = () => new ChangeLogStore(h.database.db.kysely, 'school_changes');
  const topLevel = async (): Promise<string[]> => {
    const response = await h.as(h.client).get('/api/lml/v1/structure');
    expect(response.statusCode).toBe(200);
    return response.json<{ name: string }[]>().map((node) => node.name);
  };
  /** A write that bypasses this node's services: another node, the CLI or hand-written SQL. */
  const insertBySql = (identifier: string, name: string) =>
    h.database.db.kysely
      .insertInto('schools')
      .values({ identifier, name, type: 'PO', location: null, brin: null, created_at: 1, updated_at: 1 })
      .execute();

  it('a school created after an answer is in the next one', async () => {
    await createSchool(h, { name: 'Hogeschool Utrecht' });
    expect(await topLevel()).toEqual(['Hogeschool Utrecht']);
    await createSchool(h, { name: 'Alfa-college', type: 'MBO' });
    expect(await topLevel()).toEqual(['Alfa-college', 'Hogeschool Utrecht']);
  });

  it('inserts, renames and deletes made outside this node are in the next answer, in name order', async () => {
    const hu = await createSchool(h, { name: 'Hogeschool Utrecht' });
    expect(await topLevel()).toEqual(['Hogeschool Utrecht']);
    await insertBySql('a'.repeat(32), 'Zuyd Hogeschool');
    expect(await topLevel()).toEqual(['Hogeschool Utrecht', 'Zuyd Hogeschool']);
    await h.database.db.kysely
      .updateTable('schools')
      .set({ name: 'Avans Hogeschool' })
      .where('identifier', '=', 'a'.repeat(32))
      .execute();
    expect(await topLevel()).toEqual(['Avans Hogeschool', 'Hogeschool Utrecht']);
    const renamed = await h.asAdmin().patch(`/api/admin/v1/schools/${hu.identifier}`, { name: 'Breda University' });
    expect(renamed.statusCode).toBe(200);
    expect(await topLevel()).toEqual(['Avans Hogeschool', 'Breda University']);
    await h.database.db.kysely.deleteFrom('schools').where('identifier', '=', 'a'.repeat(32)).execute();
    expect(await topLevel()).toEqual(['Breda University']);
  });

  it('calls that arrive together share one read of the change log, and each sees what was committed before it', async () => {
    const log = changeLog();
    const reads = { log: 0 };
    const read = log.read.bind(log);
    log.read = (position) => {
      reads.log++;
      return read(position);
    };
    const directory = new SchoolDirectory(new SchoolStore(h.database.db.kysely), log, DIALECTS[engine], byName);
    await insertBySql('b'.repeat(32), 'Fontys');
    expect((await directory.schools()).map((entry) => entry.name)).toEqual(['Fontys']);
    reads.log = 0; // the first call loaded the whole directory (on PostgreSQL noting the recent log)

    await insertBySql('c'.repeat(32), 'Saxion');
    const answers = await Promise.all(Array.from({ length: 8 }, () => directory.schools()));
    for (const answer of answers) expect(answer.map((entry) => entry.name)).toEqual(['Fontys', 'Saxion']);
    // One catch-up for the eight calls (at most two: one may have started before the others arrived).
    expect(reads.log).toBeGreaterThanOrEqual(1);
    expect(reads.log).toBeLessThanOrEqual(2);
  });

  it('reads each change once: a catch-up after no change reads no log entries', async () => {
    const log = changeLog();
    const returned: number[] = [];
    const read = log.read.bind(log);
    log.read = async (position) => {
      const changes = await read(position);
      returned.push(changes.length);
      return changes;
    };
    const directory = new SchoolDirectory(new SchoolStore(h.database.db.kysely), log, DIALECTS[engine], byName);
    await directory.schools(); // the load
    for (const letter of ['1', '2', '3']) await insertBySql(letter.repeat(32), `School ${letter}`);
    expect((await directory.schools()).map((entry) => entry.name)).toEqual(['School 1', 'School 2', 'School 3']);
    await directory.schools();
    await directory.schools();
    // A catch-up reads only what is new: re-reading the window each time would return [3, 3, 3].
    expect(returned).toEqual([3, 0, 0]);
  });

  it('a catch-up that fails to read the changed schools reads them again at the next call', async () => {
    const store = new SchoolStore(h.database.db.kysely);
    const directory = new SchoolDirectory(store, changeLog(), DIALECTS[engine], byName);
    expect(await directory.schools()).toEqual([]);
    const directoryEntries = store.directoryEntries.bind(store);
    let failures = 1;
    store.directoryEntries = (identifiers) => {
      if (failures-- > 0) return Promise.reject(new Error('connection lost'));
      return directoryEntries(identifiers);
    };
    await insertBySql('9'.repeat(32), 'Hogeschool Rotterdam');
    await expect(directory.schools()).rejects.toThrow('connection lost');
    expect((await directory.schools()).map((entry) => entry.name)).toEqual(['Hogeschool Rotterdam']);
  });

  it('more than a thousand changed schools since the last answer (a bulk import) are loaded afresh, not looked up one by one', async () => {
    const store = new SchoolStore(h.database.db.kysely);
    const lookups: number[] = [];
    const directoryEntries = store.directoryEntries.bind(store);
    store.directoryEntries = (identifiers) => {
      lookups.push(identifiers.length);
      return directoryEntries(identifiers);
    };
    const directory = new SchoolDirectory(store, changeLog(), DIALECTS[engine], byName);
    expect(await directory.schools()).toEqual([]);
    const rows = Array.from({ length: 1001 }, (_, i) => ({
      identifier: i.toString(16).padStart(32, '0'),
      name: `School ${String(i).padStart(4, '0')}`,
      type: 'PO',
      location: null,
      brin: null,
      created_at: 1,
      updated_at: 1,
    }));
    for (let i = 0; i < rows.length; i += 250)
      await h.database.db.kysely
        .insertInto('schools')
        .values(rows.slice(i, i + 250))
        .execute();
    const names = (await directory.schools()).map((entry) => entry.name);
    expect(names).toHaveLength(1001);
    expect(names.slice(0, 2)).toEqual(['School 0000', 'School 0001']);
    expect(lookups).toEqual([]);
    await insertBySql('f'.repeat(32), 'Zuyd');
    expect((await directory.schools()).at(-1)?.name).toBe('Zuyd');
    expect(lookups).toEqual([1]);
  });

  it('after not reading the change log for half the time it is kept, loads every school afresh', async () => {
    let now = Date.now();
    const store = new SchoolStore(h.database.db.kysely);
    const directory = new SchoolDirectory(store, changeLog(), DIALECTS[engine], byName, () => now);
    await insertBySql('d'.repeat(32), 'Windesheim');
    expect((await directory.schools()).map((entry) => entry.name)).toEqual(['Windesheim']);
    // Meanwhile the log was pruned past this node's position: the change below is no longer in it.
    await insertBySql('e'.repeat(32), 'Inholland');
    await h.database.db.kysely.deleteFrom('school_changes').execute();
    now += 6 * 60_000;
    expect((await directory.schools()).map((entry) => entry.name)).toEqual(['Inholland', 'Windesheim']);
  });

  it('a school write prunes change-log entries older than ten minutes, even where nothing reads the directory', async () => {
    await h.database.db.kysely
      .insertInto('school_changes')
      .values({ identifier: 'old', changed_at: Date.now() - 11 * 60_000 })
      .execute();
    const school = await createSchool(h, { name: 'Hanzehogeschool' });
    const left = await h.database.db.kysely.selectFrom('school_changes').select('identifier').execute();
    expect(left).toEqual([{ identifier: school.identifier }]);
  });

  if (engine === 'postgres')
    it('a change that commits after a later one is still applied (PostgreSQL assigns log ids before commit)', async () => {
      const store = new SchoolStore(h.database.db.kysely);
      const directory = new SchoolDirectory(store, changeLog(), DIALECTS[engine], byName);
      expect(await directory.schools()).toEqual([]);
      // The slow transaction takes the lower change id, then waits.
      const slow = await openTransaction(h.database.db.kysely, (trx) =>
        trx
          .insertInto('schools')
          .values({
            identifier: 'f'.repeat(32),
            name: 'Late Hogeschool',
            type: 'HBO',
            location: null,
            brin: null,
            created_at: 1,
            updated_at: 1,
          })
          .execute(),
      );
      await insertBySql('0'.repeat(32), 'Early College');
      expect((await directory.schools()).map((entry) => entry.name)).toEqual(['Early College']);
      await slow.commit();
      expect((await directory.schools()).map((entry) => entry.name)).toEqual(['Early College', 'Late Hogeschool']);
    });
});
