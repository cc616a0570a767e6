/**
 * Following a change log: a reader's position (the newest id and, on PostgreSQL, the ids missing
 * below it) and the store that reads and prunes the log, on both engines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeLogStore, LATE_COMMIT_WINDOW_MS, LogPosition, MAX_MISSING } from '../../src/db/change-log.js';
import { DIALECTS } from '../../src/db/database.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';
import { openTransaction } from '../support/open-transaction.js';

describe('LogPosition', () => {
  it('on SQLite, whose entries appear in id order, is only the newest id', () => {
    const position = LogPosition.fromVisible([3, 5, 9], DIALECTS.sqlite, 0);
    expect(position.after).toBe(9);
    expect(position.missing).toEqual([]);
    expect(position.advance([12, 15], 1)).toBe(true);
    expect([position.after, position.missing]).toEqual([15, []]);
  });

  it('on PostgreSQL follows the ids missing below the newest until they appear', () => {
    const position = LogPosition.fromVisible([3, 5, 6, 9], DIALECTS.postgres, 0);
    expect(position.after).toBe(9);
    expect(position.missing).toEqual([4, 7, 8]);
    // A read returns a late commit (7) and a new entry past a new gap (11).
    expect(position.advance([7, 11], 1000)).toBe(true);
    expect(position.after).toBe(11);
    expect(position.missing).toEqual([4, 8, 10]);
  });

  it('stops following a missing id once the late-commit window has passed since it was missed', () => {
    const position = LogPosition.fromVisible([1, 3], DIALECTS.postgres, 0);
    expect(position.advance([6], 20_000)).toBe(true);
    expect(position.missing).toEqual([2, 4, 5]);
    expect(position.advance([], LATE_COMMIT_WINDOW_MS + 1)).toBe(true);
    expect(position.missing).toEqual([4, 5]);
    expect(position.advance([], 20_000 + LATE_COMMIT_WINDOW_MS + 1)).toBe(true);
    expect(position.missing).toEqual([]);
    expect(position.after).toBe(6);
  });

  it('with more missing ids than it follows, says so (the reader starts afresh)', () => {
    const position = LogPosition.fromVisible([1], DIALECTS.postgres, 0);
    expect(position.advance([MAX_MISSING + 2], 1)).toBe(true);
    expect(position.missing).toHaveLength(MAX_MISSING);
    expect(position.advance([MAX_MISSING + 4], 2)).toBe(false);
  });
});

describeEachEngine('ChangeLogStore', (engine) => {
  let database: TestDatabase;
  let log: ChangeLogStore;
  const record = (identifier: string, changedAt: number) =>
    database.db.kysely.insertInto('school_changes').values({ identifier, changed_at: changedAt }).execute();

  beforeEach(async () => {
    database = await freshDatabase(engine);
    log = new ChangeLogStore(database.db.kysely, 'school_changes');
  });
  afterEach(async () => database.drop());

  it('a fresh position starts after the newest entry; a read returns only the entries after it, once', async () => {
    await record('a', 1);
    await record('b', 2);
    const position = await log.start(DIALECTS[engine], 10);
    expect(position.after).toBeGreaterThan(0);
    expect(await log.read(position)).toEqual([]);
    await record('c', 3);
    await record('d', 4);
    const changes = await log.read(position);
    expect(changes.map((change) => change.key)).toEqual(['c', 'd']);
    expect(
      position.advance(
        changes.map((change) => change.id),
        11,
      ),
    ).toBe(true);
    expect(await log.read(position)).toEqual([]);
  });

  it('an empty log starts at 0 and reads everything written after', async () => {
    const position = await log.start(DIALECTS[engine], 0);
    expect(position.after).toBe(0);
    await record('a', 1);
    expect((await log.read(position)).map((change) => change.key)).toEqual(['a']);
  });

  it('pruning drops the entries recorded before the given time, but always keeps the newest', async () => {
    await record('old-1', 100);
    await record('old-2', 200);
    await record('new', 1000);
    await log.prune(500);
    const left = () => database.db.kysely.selectFrom('school_changes').select('identifier').orderBy('id').execute();
    expect(await left()).toEqual([{ identifier: 'new' }]);
    await log.prune(5000);
    expect(await left()).toEqual([{ identifier: 'new' }]);
  });

  if (engine === 'postgres')
    it('a transaction open while a reader starts is read when it commits, and only then', async () => {
      await record('before', 1);
      const late = await openTransaction(database.db.kysely, (trx) =>
        trx.insertInto('school_changes').values({ identifier: 'late', changed_at: 2 }).execute(),
      );
      await record('after', 3);
      const position = await log.start(DIALECTS[engine], 0);
      expect(position.missing).toHaveLength(1);
      expect(await log.read(position)).toEqual([]);
      await late.commit();
      const changes = await log.read(position);
      expect(changes.map((change) => change.key)).toEqual(['late']);
      position.advance(
        changes.map((change) => change.id),
        1,
      );
      expect(position.missing).toEqual([]);
      expect(await log.read(position)).toEqual([]);
    });
});
