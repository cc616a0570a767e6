/**
 * `shelfmark prune`, in-process through runCli against a real database (SQLite file / PostgreSQL
 * schema): the dry run's report changes nothing, the prune's report and rows, its progress on stderr,
 * the hint of a long paced prune and --unpaced, the lock, the usage errors, and --vacuum.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { LEASE_MS, LEASE_SETTING } from '../../src/retention/lock.js';
import { cli, cliEnvironment } from '../support/cli.js';
import { describeEachEngine } from '../support/engines.js';
import { createHarness, type Harness } from '../support/harness.js';
import { column, DAY, History, NONE_FROM_THE_SMALL_TABLES } from './support.js';

describeEachEngine('retention: shelfmark prune', (engine) => {
  let h: Harness;
  let restoreEnvironment = (): void => undefined;

  beforeAll(async () => {
    h = await createHarness(engine, {}, { file: true });
    restoreEnvironment = cliEnvironment(h, 'cli-prune-admin-token-0123', { PRUNE_PAUSE_MS: '0' });
    // The history below is written against the wall clock, which the CLI's prune reads.
    const now = Date.now();
    const history = await new History(h.database.db, now).setUp();
    await history.event('evt_old', now - 100 * DAY);
    await history.event('evt_new', now - DAY);
    const old = { event: 'evt_old', createdAt: now - 100 * DAY, completedAt: now - 100 * DAY } as const;
    await history.delivery({ ...old, id: 'dlv_succeeded', status: 'succeeded' });
    await history.delivery({ ...old, id: 'dlv_failed', status: 'failed', attempts: 3 });
    await history.delivery({
      id: 'dlv_new',
      event: 'evt_new',
      status: 'succeeded',
      createdAt: now - DAY,
      completedAt: now - DAY,
    });
  }, 60_000);
  afterAll(async () => {
    restoreEnvironment();
    await h.close();
  });
  beforeEach(async () => {
    await h.database.db.kysely.deleteFrom('settings').where('key', '=', LEASE_SETTING).execute();
  });

  const expectedItems = (deliveries: [number, number, number, number], events: number) => [
    { table: 'deliveries', reason: 'succeeded, completed more than 30 days ago', rows: deliveries[0] },
    {
      table: 'delivery_attempts',
      reason: 'of succeeded deliveries completed more than 30 days ago',
      rows: deliveries[1],
    },
    { table: 'deliveries', reason: 'failed, completed more than 90 days ago', rows: deliveries[2] },
    { table: 'delivery_attempts', reason: 'of failed deliveries completed more than 90 days ago', rows: deliveries[3] },
    { table: 'deliveries', reason: 'cancelled, completed more than 90 days ago', rows: 0 },
    { table: 'delivery_attempts', reason: 'of cancelled deliveries completed more than 90 days ago', rows: 0 },
    { table: 'events', reason: 'no delivery left, created more than 90 days ago', rows: events },
    { table: 'response_bodies', reason: 'cleared on attempts started more than 7 days ago', rows: 0 },
    { table: 'delivery_stats', reason: 'counters of hours more than 90 days ago', rows: 0 },
    { table: 'idempotency_keys', reason: 'expired (24 hours after the first request)', rows: 0 },
    { table: 'web_sessions', reason: 'idle for more than 1800 s', rows: 0 },
    { table: 'portal_links', reason: 'used or expired', rows: 0 },
    { table: 'offer_changes', reason: 'recorded more than 10 minutes ago (the newest kept)', rows: 0 },
    { table: 'school_changes', reason: 'recorded more than 10 minutes ago (the newest kept)', rows: 0 },
    { table: 'audit_records', reason: 'made more than 400 days ago', rows: 0 },
  ];

  it('prune --dry-run prints what would go, per table and reason, and changes nothing; prune then removes it', async () => {
    const dry = await cli(['prune', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({ dryRun: true, items: expectedItems([1, 1, 1, 3], 1), total: 7 });
    expect(dry.stderr).toBe('dry run: 7 rows would go; nothing was changed\n');
    expect(await column(h.database.db, 'deliveries')).toEqual(['dlv_failed', 'dlv_new', 'dlv_succeeded']);

    const table = await cli(['prune', '--dry-run'], true);
    expect(table.stdout.split('\n').slice(0, 3)).toEqual([
      'table              rows  reason',
      'deliveries         1     succeeded, completed more than 30 days ago',
      'delivery_attempts  1     of succeeded deliveries completed more than 30 days ago',
    ]);

    const pruned = await cli(['prune']);
    expect(pruned.code).toBe(0);
    const report = JSON.parse(pruned.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      dryRun: false,
      paced: false,
      complete: true,
      items: expectedItems([1, 1, 1, 3], 1),
      total: 7,
    });
    expect(report.rows).toEqual({
      deliveries: 2,
      delivery_attempts: 4,
      events: 1,
      response_bodies: 0,
      ...NONE_FROM_THE_SMALL_TABLES,
    });
    expect(report.vacuum).toBeNull();
    expect(pruned.stderr).toMatch(new RegExp(`^pruned 7 rows in \\d+\\.\\d s \\(${engine}\\)\\n`));
    expect(await column(h.database.db, 'deliveries')).toEqual(['dlv_new']);
    expect(await column(h.database.db, 'events')).toEqual(['evt_new']);

    // Nothing left to go.
    expect(JSON.parse((await cli(['prune', '--dry-run'])).stdout)).toEqual({
      dryRun: true,
      items: expectedItems([0, 0, 0, 0], 0),
      total: 0,
    });
  });

  it('prune exits 1 and does nothing while another process holds the prune lock', async () => {
    const hold = async (work: () => Promise<void>): Promise<void> => {
      if (engine === 'sqlite') {
        const value = JSON.stringify({ owner: 'other/1/x', until: Date.now() + LEASE_MS });
        await h.database.db.kysely.insertInto('settings').values({ key: LEASE_SETTING, value }).execute();
        await work();
        return;
      }
      await h.database.db.kysely.connection().execute(async (other) => {
        await sql`select pg_advisory_lock(${0x5e1f_0001}, hashtext(current_schema()))`.execute(other);
        try {
          await work();
        } finally {
          await sql`select pg_advisory_unlock(${0x5e1f_0001}, hashtext(current_schema()))`.execute(other);
        }
      });
    };
    await hold(async () => {
      const busy = await cli(['prune']);
      expect(busy).toEqual({
        code: 1,
        stdout: '',
        stderr: 'another process is pruning now (it holds the prune lock); nothing was done\n',
      });
    });
  });

  it('--dry-run excludes --vacuum and --unpaced (exit 2); prune --help describes the command', async () => {
    for (const other of ['--vacuum', '--unpaced']) {
      const both = await cli(['prune', '--dry-run', other]);
      expect(both.code).toBe(2);
      expect(both.stderr).toContain(`prune: --dry-run and ${other} exclude each other`);
    }
    const help = await cli(['prune', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: shelfmark prune [--dry-run] [--unpaced] [--vacuum] [--json]');
    expect(help.stdout).toContain('  --unpaced  remove in back-to-back batches, as PRUNE_PAUSE_MS=0 does');
  });

  /** `count` succeeded deliveries completed 100 days ago, each with one attempt, each on an event of its own. */
  async function oldDeliveries(prefix: string, count: number): Promise<void> {
    const now = Date.now();
    const history = new History(h.database.db, now);
    for (let i = 0; i < count; i++) {
      const at = now - 100 * DAY + i;
      await history.event(`evt_${prefix}${i}`, at);
      await history.delivery({
        id: `dlv_${prefix}${i}`,
        event: `evt_${prefix}${i}`,
        status: 'succeeded',
        createdAt: at,
        completedAt: at,
      });
    }
  }
  /** Runs `shelfmark <args>` with `extra` in the environment for this call only. */
  async function cliWith(extra: Record<string, string>, args: string[], tty = false) {
    const saved = { ...process.env };
    Object.assign(process.env, extra);
    try {
      return await cli(args, tty);
    } finally {
      process.env = saved;
    }
  }

  it('a prune of several batches shows its progress on stderr, rows per table and the time left; stdout stays JSON', async () => {
    await oldDeliveries('p', 30);
    // Batches of 10: three transactions of deliveries (with their attempts), three of events.
    const pruned = await cliWith({ PRUNE_BATCH_SIZE: '10' }, ['prune']);
    expect(pruned.code).toBe(0);
    expect(JSON.parse(pruned.stdout)).toMatchObject({ dryRun: false, paced: false, complete: true, total: 90 });
    const lines = pruned.stderr.split('\n').map((line) => line.replace(/(about \S+|under 1s) left/, '… left'));
    const of = (deliveries: number, events: number) =>
      `removed so far: deliveries ${deliveries} of 30, delivery_attempts ${deliveries} of 30, events ${events} of 30`;
    expect(lines.slice(0, 7)).toEqual([
      `pruning: 16% done, … left; ${of(10, 0)}`,
      `pruning: 33% done, … left; ${of(20, 0)}`,
      `pruning: 50% done, … left; ${of(30, 0)}`,
      `pruning: 66% done, … left; ${of(30, 10)}`,
      `pruning: 83% done, … left; ${of(30, 20)}`,
      `pruning: 100% done, … left; ${of(30, 30)}`,
      expect.stringMatching(new RegExp(`^pruned 90 rows in \\d+\\.\\d s \\(${engine}\\)$`)),
    ]);
    expect(await column(h.database.db, 'deliveries')).toEqual(['dlv_new']);
  });

  it('a paced prune expected to take long says how to run it unpaced; --unpaced then runs without pauses', async () => {
    await oldDeliveries('h', 1);
    // Two transactions (the delivery with its attempt, the event), each followed by a pause of a minute: two
    // minutes by the estimate. Each walk fits in one batch, so this prune itself never pauses.
    const paced = await cliWith({ PRUNE_PAUSE_MS: '60000' }, ['prune']);
    expect(paced.code).toBe(0);
    expect(JSON.parse(paced.stdout)).toMatchObject({ paced: true, total: 3 });
    expect(paced.stderr.split('\n').slice(0, 3)).toEqual([
      'paced like the background pruner: 3 rows to go in about 2 transactions, each followed by a pause of 60000 ms (PRUNE_PAUSE_MS) or 100 times its own length: at least 2m00s',
      "in a maintenance window, `npx shelfmark prune --unpaced` removes them in back-to-back batches (the service's writes then wait behind each batch)",
      expect.stringMatching(new RegExp(`^pruned 3 rows in \\d+\\.\\d s \\(${engine}\\)$`)),
    ]);

    await oldDeliveries('u', 1);
    // On a terminal: the count is said while it runs, then cleared; the report is a table.
    const unpaced = await cliWith({ PRUNE_PAUSE_MS: '60000' }, ['prune', '--unpaced'], true);
    expect(unpaced.code).toBe(0);
    expect(unpaced.stdout.split('\n').filter((line) => /^deliveries +1 /.test(line))).toHaveLength(1);
    expect(unpaced.stderr).toMatch(
      new RegExp(`^\\rcounting what will go…\\r {22}\\rpruned 3 rows in \\d+\\.\\d s \\(${engine}\\)\\n`),
    );
    expect(JSON.parse((await cliWith({ PRUNE_PAUSE_MS: '60000' }, ['prune', '--unpaced'])).stdout)).toMatchObject({
      paced: false,
      total: 0,
    });
  });

  it('the dry run counts the audit records older than AUDIT_RETENTION_DAYS, and the prune removes them', async () => {
    const k = h.database.db.kysely;
    const records = await k.selectFrom('audit_records').select(['seq', 'at']).orderBy('seq').execute();
    // The prunes above recorded themselves. Their first two are moved 401 days back, by the wall clock
    // the CLI reads (the chain no longer verifies; this test only counts).
    expect(records.length).toBeGreaterThan(2);
    const old = Date.now() - 401 * DAY;
    for (const record of records.slice(0, 2))
      await k.updateTable('audit_records').set({ at: old }).where('seq', '=', record.seq).execute();
    const dry = await cli(['prune', '--dry-run']);
    const items = (JSON.parse(dry.stdout) as { items: { table: string; rows: number }[] }).items;
    expect(items.filter((item) => item.rows > 0)).toEqual([
      { table: 'audit_records', reason: 'made more than 400 days ago', rows: 2 },
    ]);
    const pruned = JSON.parse((await cli(['prune'])).stdout) as { rows: Record<string, number> };
    expect(pruned.rows.audit_records).toBe(2);
    const left = await k.selectFrom('audit_records').select('seq').orderBy('seq').execute();
    expect(left[0]?.seq).toBe(records[2]?.seq);
  });

  it('prune --vacuum: SQLite rewrites the file once with auto_vacuum=incremental; PostgreSQL needs nothing', async () => {
    const result = await cli(['prune', '--vacuum']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { vacuum: Record<string, unknown> | null };
    if (engine === 'sqlite') {
      expect(report.vacuum).toMatchObject({ autoVacuum: 'incremental' });
      expect(result.stderr).toMatch(/^vacuum: [\d.]+ MB → [\d.]+ MB \(auto_vacuum=incremental, /m);
    } else {
      expect(report.vacuum).toBeNull();
      expect(result.stderr).toContain('--vacuum: PostgreSQL reuses freed space by itself (autovacuum); nothing to do');
    }
  });
});
