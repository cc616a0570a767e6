/**
 * The bench's history (bench/lib/history-seed.ts) is what the service itself would have left, on both
 * engines: ids in src/ids.ts's formats and time order, attempts that fit their delivery's times, the
 * still-retrying and probe deliveries pending with their next attempt ahead, and the counters of
 * migration 0013 equal to the rows they count.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openRunner, type SqlRunner } from '../../bench/lib/history-db.js';
import { DAY_MS, seedHistory } from '../../bench/lib/history-seed.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const HOUR_MS = 3_600_000;
const decode = (text: string): number => [...text].reduce((value, char) => value * 62 + BASE62.indexOf(char), 0);

interface Delivery {
  id: string;
  event_id: string;
  subscription_id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: number;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

interface Attempt {
  id: string;
  delivery_id: string;
  attempt_no: number;
  started_at: number;
  duration_ms: number;
  status_code: number;
}

describeEachEngine('bench history seed', (engine) => {
  let database: TestDatabase;
  let runner: SqlRunner;
  const subscriptions = ['sub_a', 'sub_b', 'sub_c', 'sub_d', 'sub_e'];
  const now = Date.now();

  beforeEach(async () => {
    database = await freshDatabase(engine, { file: true });
    const k = database.db.kysely;
    await k
      .insertInto('clients')
      .values({
        id: 'cli_bench',
        client_id: 'smc_bench',
        name: 'bench',
        secret_hash: 'x',
        secret_version: 1,
        tokens_valid_after: 0,
        scopes: 'webhooks:manage',
        webhook_secret: 'whsec_x',
        created_at: 0,
        updated_at: 0,
      })
      .execute();
    for (const id of subscriptions)
      await k
        .insertInto('subscriptions')
        .values({
          id,
          client_ref: 'cli_bench',
          notification_url: `http://127.0.0.1:9/${id}`,
          event: 'school.created',
          event_as_given: 'school.created',
          status: 'active',
          created_at: 0,
          updated_at: 0,
        })
        .execute();
    runner = await openRunner({ engine, url: database.url, drop: async () => undefined });
  });
  afterEach(async () => {
    await runner.close();
    await database.drop();
  });

  it('writes deliveries, attempts and counters as completions would have left them', async () => {
    const events = 1000;
    const seeded = await seedHistory(runner, {
      events,
      subscriptionIds: subscriptions,
      days: 180,
      failEvery: 50,
      now,
      tag: 1,
    });
    const deliveries = (await runner.rows<Delivery>('select * from deliveries')).map((row) => ({
      ...row,
      next_attempt_at: Number(row.next_attempt_at),
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
      completed_at: row.completed_at === null ? null : Number(row.completed_at),
    }));
    const attempts = (await runner.rows<Attempt>('select * from delivery_attempts')).map((row) => ({
      ...row,
      started_at: Number(row.started_at),
    }));
    expect(seeded.rows).toEqual({ events, deliveries: events * 5, delivery_attempts: attempts.length });
    expect(deliveries).toHaveLength(events * 5);

    // Feed positions 1..n in the order the events were created, and the counter at the last: nothing
    // left for PostgreSQL's sequencer to stamp when the service starts.
    const positions = await runner.rows<{ seq: number | null }>('select seq from events order by created_at, id');
    expect(positions.map((row) => Number(row.seq))).toEqual(Array.from({ length: events }, (_, i) => i + 1));
    const [counter] = await runner.rows<{ last: number }>('select last from event_sequence where id = 1');
    expect(Number(counter?.last)).toBe(events);

    // Ids: prefix, 8 base62 characters of the creation time, 25 in all; later rows sort later.
    for (const d of deliveries) {
      expect(d.id).toMatch(/^dlv_[0-9A-Za-z]{21}$/);
      expect(decode(d.id.slice(4, 12))).toBe(d.created_at);
      expect(decode(d.event_id.slice(4, 12))).toBe(d.created_at);
    }
    const byId = [...deliveries].sort((a, b) => (a.id < b.id ? -1 : 1)).map((d) => d.created_at);
    expect(byId).toEqual([...byId].sort((a, b) => a - b));
    for (const a of attempts) expect(decode(a.id.slice(4, 12))).toBe(a.started_at);

    // 2 % fail; the times span 180 days up to now, and nothing happened after now.
    const byStatus = (status: string) => deliveries.filter((d) => d.status === status);
    expect(byStatus('failed').length + byStatus('pending').length).toBe((events * 5) / 50);
    const created = deliveries.map((d) => d.created_at);
    expect(Math.min(...created)).toBeGreaterThanOrEqual(now - 180 * DAY_MS);
    expect(Math.max(...created)).toBeLessThan(now);
    for (const a of attempts) expect(a.started_at + a.duration_ms).toBeLessThanOrEqual(now);

    const attemptsOf = new Map<string, Attempt[]>();
    for (const a of attempts) attemptsOf.set(a.delivery_id, [...(attemptsOf.get(a.delivery_id) ?? []), a]);
    for (const d of deliveries) {
      const own = (attemptsOf.get(d.id) ?? []).sort((a, b) => a.attempt_no - b.attempt_no);
      expect(own.map((a) => a.attempt_no)).toEqual(own.map((_, i) => i + 1));
      expect(own.length).toBe(d.attempt_count);
      expect(own[0]?.started_at).toBeGreaterThan(d.created_at);
      const last = own.at(-1) as Attempt;
      if (d.status === 'succeeded') {
        expect([own.length, last.status_code, d.completed_at]).toEqual([1, 204, last.started_at + last.duration_ms]);
        expect(d.next_attempt_at).toBe(d.completed_at);
      } else if (d.status === 'failed') {
        expect(own.map((a) => a.status_code)).toEqual([500, 500, 500, 500, 500]);
        expect(d.completed_at).toBe(last.started_at + last.duration_ms);
        expect(own.map((a, i) => (i === 0 ? 0 : a.started_at - (own[i - 1] as Attempt).started_at - 30))).toEqual([
          0, 5_000, 300_000, 1_800_000, 7_200_000,
        ]);
      } else {
        // Still retrying (a probe, or a fifth attempt still ahead): its next attempt a day ahead.
        expect(d.completed_at).toBeNull();
        expect(d.next_attempt_at).toBe(now + DAY_MS);
        expect(d.updated_at).toBe(last.started_at + last.duration_ms);
      }
    }
    expect(seeded.pending.size).toBe(byStatus('pending').length);
    expect(byStatus('pending').length).toBeGreaterThan(0);

    // The counters: each attempt in the hour it ended, each finished delivery in the hour it finished.
    const expected = new Map<number, [number, number, number, number]>();
    const add = (at: number, index: number): void => {
      const hour = at - (at % HOUR_MS);
      const row = expected.get(hour) ?? [0, 0, 0, 0];
      row[index] = (row[index] ?? 0) + 1;
      expected.set(hour, row);
    };
    for (const a of attempts) add(a.started_at + a.duration_ms, a.status_code < 300 ? 0 : 1);
    for (const d of deliveries) if (d.completed_at !== null) add(d.completed_at, d.status === 'succeeded' ? 2 : 3);
    const stats = await runner.rows<Record<string, number>>('select * from delivery_stats');
    expect(
      new Map(
        stats.map((row) => [
          Number(row.hour),
          [row.attempts_ok, row.attempts_failed, row.succeeded, row.failed].map(Number) as [
            number,
            number,
            number,
            number,
          ],
        ]),
      ),
    ).toEqual(expected);
    expect(stats.every((row) => Number(row.shard) === 0)).toBe(true);

    // Each subscription's health: the last success, failed deliveries since, a failing streak still open.
    const health = await runner.rows<Record<string, number | string | null>>(
      'select id, last_success_at, consecutive_failures, failing_since from subscriptions order by id',
    );
    for (const row of health) {
      const own = deliveries.filter((d) => d.subscription_id === row.id);
      const lastSuccess = Math.max(...own.filter((d) => d.status === 'succeeded').map((d) => d.completed_at ?? 0));
      const failedSince = own.filter((d) => d.status === 'failed' && (d.completed_at ?? 0) > lastSuccess).length;
      const openFailures = attempts
        .filter((a) => a.status_code >= 300 && own.some((d) => d.id === a.delivery_id))
        .map((a) => a.started_at + a.duration_ms)
        .filter((end) => end > lastSuccess);
      expect(Number(row.last_success_at)).toBe(lastSuccess);
      expect(Number(row.consecutive_failures)).toBe(failedSince);
      expect(row.failing_since === null ? null : Number(row.failing_since)).toBe(
        openFailures.length === 0 ? null : Math.min(...openFailures),
      );
    }
  });
});
