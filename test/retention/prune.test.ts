/**
 * What a prune keeps and removes at each boundary, on both engines: succeeded deliveries after 30
 * days, failed after 90 (counted from completion), events only once no kept delivery refers to them,
 * pending and retrying deliveries never, `0` = forever; and the bounds of the small tables.
 */
import { expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { type Config, testConfig } from '../../src/config.js';
import { CHANGES_KEPT_MS } from '../../src/db/change-log.js';
import { RetentionService } from '../../src/retention/service.js';
import { describeEachEngine, type TestDatabase } from '../support/engines.js';
import {
  column,
  DAY,
  type History,
  NONE_FROM_THE_SMALL_TABLES,
  NOW,
  PRUNED_WITH_DEFAULTS,
  useHistoryFixture,
} from './support.js';

describeEachEngine('retention: what a prune keeps', (engine) => {
  let database: TestDatabase;
  let clock: ManualClock;
  let history: History;

  useHistoryFixture(engine, (fixture) => {
    ({ database, clock, history } = fixture);
  });

  const service = (overrides: Partial<Config> = {}) =>
    new RetentionService({
      db: database.db,
      config: testConfig({ prunePauseMs: 0, ...overrides }),
      clock,
      pause: async () => undefined,
    });

  /** The deliveries and events of the boundary cases; each id says what should happen to it. */
  async function boundaries(): Promise<void> {
    await history.event('evt_recent', NOW - 31 * DAY);
    await history.event('evt_failed_kept', NOW - 95 * DAY);
    await history.event('evt_gone', NOW - 95 * DAY);
    await history.event('evt_ancient_pending', NOW - 400 * DAY);
    await history.event('evt_unreferenced_gone', NOW - 90 * DAY - 1);
    await history.event('evt_unreferenced_edge', NOW - 90 * DAY);
    // Succeeded: completed more than 30 days ago goes; exactly 30 days stays; created long ago but
    // completed recently (a late retry) stays.
    const s = { event: 'evt_recent', status: 'succeeded' } as const;
    await history.delivery({ ...s, id: 'dlv_s_gone', createdAt: NOW - 31 * DAY, completedAt: NOW - 30 * DAY - 1 });
    await history.delivery({ ...s, id: 'dlv_s_edge', createdAt: NOW - 31 * DAY, completedAt: NOW - 30 * DAY });
    await history.delivery({ ...s, id: 'dlv_s_late', createdAt: NOW - 40 * DAY, completedAt: NOW - 29 * DAY });
    // Failed: 90 days.
    const f = { status: 'failed', attempts: 5 } as const;
    await history.delivery({
      ...f,
      id: 'dlv_f_gone',
      event: 'evt_gone',
      createdAt: NOW - 95 * DAY,
      completedAt: NOW - 90 * DAY - 1,
    });
    await history.delivery({
      ...f,
      id: 'dlv_f_edge',
      event: 'evt_failed_kept',
      createdAt: NOW - 95 * DAY,
      completedAt: NOW - 90 * DAY,
    });
    await history.delivery({
      ...f,
      id: 'dlv_f_60d',
      event: 'evt_recent',
      createdAt: NOW - 61 * DAY,
      completedAt: NOW - 60 * DAY,
    });
    // Pending, never tried and retrying, however old.
    const p = { event: 'evt_ancient_pending', status: 'pending', completedAt: null } as const;
    await history.delivery({ ...p, id: 'dlv_p_ancient', createdAt: NOW - 400 * DAY });
    await history.delivery({ ...p, id: 'dlv_r_ancient', createdAt: NOW - 400 * DAY, attempts: 3 });
  }

  it('removes succeeded deliveries after 30 days and failed after 90, with their attempts; never pending ones', async () => {
    await boundaries();
    const outcome = await service().prune();
    expect(outcome.status).toBe('pruned');
    expect(await column(database.db, 'deliveries')).toEqual([
      'dlv_f_60d',
      'dlv_f_edge',
      'dlv_p_ancient',
      'dlv_r_ancient',
      'dlv_s_edge',
      'dlv_s_late',
    ]);
    expect(await column(database.db, 'delivery_attempts')).toEqual([
      ...[1, 2, 3, 4, 5].map((n) => `dlv_f_60d_a${n}`),
      ...[1, 2, 3, 4, 5].map((n) => `dlv_f_edge_a${n}`),
      'dlv_r_ancient_a1',
      'dlv_r_ancient_a2',
      'dlv_r_ancient_a3',
      'dlv_s_edge_a1',
      'dlv_s_late_a1',
    ]);
    // evt_gone lost its only delivery and is older than 90 days; evt_recent is younger; the others
    // are still referred to, or exactly 90 days old.
    expect(await column(database.db, 'events')).toEqual([
      'evt_ancient_pending',
      'evt_failed_kept',
      'evt_recent',
      'evt_unreferenced_edge',
    ]);
    if (outcome.status !== 'pruned') return;
    expect(outcome.record).toEqual({
      startedAt: NOW,
      finishedAt: NOW,
      complete: true,
      rows: {
        deliveries: 2,
        delivery_attempts: 6,
        events: 2,
        response_bodies: 15,
        ...NONE_FROM_THE_SMALL_TABLES,
      },
    });
    expect(outcome.items.filter((item) => item.rows > 0)).toEqual(PRUNED_WITH_DEFAULTS);
    // A second prune finds nothing more.
    const again = await service().prune();
    expect(again.status === 'pruned' && again.items.every((item) => item.rows === 0)).toBe(true);
  });

  it('0 keeps forever: nothing goes with both delivery settings at 0, and events then default to forever', async () => {
    await boundaries();
    const before = await Promise.all(['deliveries', 'delivery_attempts', 'events'].map((t) => column(database.db, t)));
    const outcome = await service({
      deliveryRetentionDays: 0,
      failedDeliveryRetentionDays: 0,
      responseBodyRetentionDays: 0,
    }).prune();
    expect(outcome.status === 'pruned' && outcome.items.every((item) => item.rows === 0)).toBe(true);
    expect(await Promise.all(['deliveries', 'delivery_attempts', 'events'].map((t) => column(database.db, t)))).toEqual(
      before,
    );
  });

  it('EVENT_RETENTION_DAYS on its own still keeps every event a kept delivery refers to', async () => {
    await boundaries();
    await service({ deliveryRetentionDays: 0, failedDeliveryRetentionDays: 0, eventRetentionDays: 10 }).prune();
    expect(await column(database.db, 'deliveries')).toHaveLength(8);
    // Only the two events that no delivery refers to, both older than 10 days.
    expect(await column(database.db, 'events')).toEqual([
      'evt_ancient_pending',
      'evt_failed_kept',
      'evt_gone',
      'evt_recent',
    ]);
  });

  it('a failed delivery goes at 90 days by default, sooner with FAILED_DELIVERY_RETENTION_DAYS', async () => {
    await boundaries();
    await service({ failedDeliveryRetentionDays: 59 }).prune();
    expect(await column(database.db, 'deliveries')).toEqual([
      'dlv_p_ancient',
      'dlv_r_ancient',
      'dlv_s_edge',
      'dlv_s_late',
    ]);
    // Events default to the larger of 30 and 59 days.
    expect(await column(database.db, 'events')).toEqual(['evt_ancient_pending', 'evt_recent']);
  });

  it('clears response bodies after 7 days, walking on from where the last prune stopped', async () => {
    await history.event('evt_1', NOW - 20 * DAY);
    await history.delivery({
      id: 'dlv_1',
      event: 'evt_1',
      status: 'pending',
      createdAt: NOW - 20 * DAY,
      completedAt: null,
    });
    await history.attempt('att_1', 'dlv_1', 1, NOW - 8 * DAY);
    await history.attempt('att_2', 'dlv_1', 2, NOW - 7 * DAY - 1);
    await history.attempt('att_3', 'dlv_1', 3, NOW - 7 * DAY);
    await history.attempt('att_4', 'dlv_1', 4, NOW - DAY);
    const bodies = async () =>
      (
        await database.db.kysely.selectFrom('delivery_attempts').select(['id', 'response_body']).orderBy('id').execute()
      ).map((row) => [row.id, row.response_body]);
    await service().prune();
    expect(await bodies()).toEqual([
      ['att_1', null],
      ['att_2', null],
      ['att_3', 'body'],
      ['att_4', 'body'],
    ]);
    clock.advance(1);
    await service().prune();
    expect(await bodies()).toEqual([
      ['att_1', null],
      ['att_2', null],
      ['att_3', null],
      ['att_4', 'body'],
    ]);
  });

  it('bounds the small tables: expired idempotency keys, idle sessions, used or expired links, old change-log entries and counters', async () => {
    const k = database.db.kysely;
    const idle = testConfig().sessionIdleSeconds * 1000;
    const key = (name: string, expiresAt: number) => ({
      owner: 'admin',
      key: name,
      request_hash: 'h',
      status_code: 201,
      response_headers: '{}',
      response_body: '{}',
      created_at: expiresAt - DAY,
      expires_at: expiresAt,
    });
    await k
      .insertInto('idempotency_keys')
      .values([key('expired', NOW), key('live', NOW + 1)])
      .execute();
    const session = (id: string, lastSeen: number) => ({
      id_hash: id,
      kind: 'console',
      client_ref: null,
      csrf_token: 'c',
      created_at: lastSeen,
      last_seen_at: lastSeen,
    });
    await k
      .insertInto('web_sessions')
      .values([session('idle', NOW - idle - 1), session('live', NOW - idle)])
      .execute();
    const link = (hash: string, expiresAt: number, usedAt: number | null) => ({
      token_hash: hash,
      client_ref: 'cli_retention',
      created_at: expiresAt - 15 * 60_000,
      expires_at: expiresAt,
      used_at: usedAt,
    });
    await k
      .insertInto('portal_links')
      .values([link('expired', NOW - 1, null), link('used', NOW + 60_000, NOW - 1000), link('live', NOW, null)])
      .execute();
    for (const log of ['offer_changes', 'school_changes'] as const) {
      const keyColumn = log === 'offer_changes' ? 'ean' : 'identifier';
      for (const [n, at] of [
        [1, NOW - CHANGES_KEPT_MS - 1],
        [2, NOW - CHANGES_KEPT_MS],
        [3, NOW - 1000],
      ] as const)
        await database.db.kysely
          .insertInto(log)
          .values({ [keyColumn]: `k${n}`, changed_at: at } as never)
          .execute();
    }
    // The newest entry stays however old: a fresh reader counts back from it.
    await k
      .insertInto('offer_changes')
      .values({ ean: 'k4', changed_at: NOW - DAY })
      .execute();
    const hour = (at: number) => at - (at % 3_600_000);
    await k
      .insertInto('delivery_stats')
      .values([
        { hour: hour(NOW - 91 * DAY), shard: 0, succeeded: 1 },
        { hour: hour(NOW - 91 * DAY), shard: 1, succeeded: 1 },
        { hour: NOW - 90 * DAY, shard: 0, succeeded: 1 },
        { hour: hour(NOW), shard: 0, succeeded: 1 },
      ])
      .execute();

    const outcome = await service().prune();
    expect(outcome.status === 'pruned' ? outcome.record.rows : undefined).toMatchObject({
      idempotency_keys: 1,
      web_sessions: 1,
      portal_links: 2,
      offer_changes: 1,
      school_changes: 1,
      delivery_stats: 2,
    });
    expect(await column(database.db, 'idempotency_keys', 'key')).toEqual(['live']);
    expect(await column(database.db, 'web_sessions', 'id_hash')).toEqual(['live']);
    expect(await column(database.db, 'portal_links', 'token_hash')).toEqual(['live']);
    expect(await column(database.db, 'offer_changes', 'ean')).toEqual(['k2', 'k3', 'k4']);
    expect(await column(database.db, 'school_changes', 'identifier')).toEqual(['k2', 'k3']);
    expect((await column(database.db, 'delivery_stats', 'hour')).map(Number).sort()).toEqual(
      [NOW - 90 * DAY, hour(NOW)].sort(),
    );
  });

  it('a dry run counts exactly what the prune then removes, and changes nothing', async () => {
    await boundaries();
    const snapshot = () =>
      Promise.all(
        ['deliveries', 'delivery_attempts', 'events', 'settings'].map(async (table) => [
          table,
          await column(database.db, table, table === 'settings' ? 'key' : 'id'),
        ]),
      );
    const before = await snapshot();
    const items = await service().dryRun();
    expect(await snapshot()).toEqual(before);
    expect(items.filter((item) => item.rows > 0)).toEqual(PRUNED_WITH_DEFAULTS);
    const pruned = await service().prune();
    expect(pruned.status === 'pruned' ? pruned.items : []).toEqual(items);
  });
});
