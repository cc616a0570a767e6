/**
 * `shelfmark prune`, in-process through runCli against a real database (SQLite file / PostgreSQL
 * schema): the dry run's report changes nothing, the prune's report and rows, the lock, the usage
 * errors, and --vacuum.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { LEASE_MS, LEASE_SETTING } from '../../src/retention/lock.js';
import { cli, cliEnvironment } from '../support/cli.js';
import { describeEachEngine } from '../support/engines.js';
import { createHarness, type Harness } from '../support/harness.js';
import { column, DAY, History } from './support.js';

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
    expect(report).toMatchObject({ dryRun: false, complete: true, items: expectedItems([1, 1, 1, 3], 1), total: 7 });
    expect(report.rows).toEqual({
      deliveries: 2,
      delivery_attempts: 4,
      events: 1,
      response_bodies: 0,
      delivery_stats: 0,
      idempotency_keys: 0,
      web_sessions: 0,
      portal_links: 0,
      offer_changes: 0,
      school_changes: 0,
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

  it('--dry-run and --vacuum exclude each other (exit 2); prune --help describes the command', async () => {
    const both = await cli(['prune', '--dry-run', '--vacuum']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('prune: --dry-run and --vacuum exclude each other');
    const help = await cli(['prune', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: shelfmark prune [--dry-run] [--vacuum] [--json]');
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
