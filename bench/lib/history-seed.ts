/**
 * Months of delivery history written straight into a service's database in bulk SQL: one
 * `insert … select` per table over a generated series (`generate_series` on PostgreSQL, a recursive
 * CTE on SQLite), shaped as the service itself would have left it. Events of school.created, one
 * delivery per event and subscription, and their attempts; most deliveries succeed at the first
 * attempt, one in `failEvery` (spread over the subscriptions) fails 5 times over the retry schedule
 * (5 s, 300 s, 1,800 s, 7,200 s apart) and ends `failed`. Ids have src/ids.ts's formats (prefix, 8
 * base62 characters of the creation time, then base62 of a counter), so they sort by time as real ones
 * do. A failing delivery whose fifth attempt still lies in the future is still retrying (`pending`),
 * and so is every probe (one failing delivery in ten thousand events, however old): pending rows the
 * pruner must never touch. Their next attempt is a day ahead, so no worker of the bench sends them.
 * Then the counters the completions maintain (migration 0013) are filled as those completions would
 * have left them (fillCounters).
 */
import { hasColumn, hasTable, type SqlRunner } from './history-db.js';
import type { Engine } from './shelfmark.js';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Waits between the attempts of a failing delivery (the first four of the default schedule), in ms. */
const RETRY_WAITS_MS = [5_000, 300_000, 1_800_000, 7_200_000];
const FAILED_ATTEMPTS = RETRY_WAITS_MS.length + 1;
const FAILED_DURATION_MS = 30;
/** A probe has made this many attempts and waits for the next. */
const PROBE_ATTEMPTS = 3;

export interface HistoryShape {
  /** Events; each is delivered once to every subscription. */
  events: number;
  /** Existing subscriptions (to school.created), in the order deliveries cycle through them. */
  subscriptionIds: readonly string[];
  /** The history ends at `now` and starts this many days before, the events evenly spaced. */
  days: number;
  /** One delivery in this many fails for good (2 %: 50). */
  failEvery: number;
  now: number;
  /** Makes this history's school identifiers its own. */
  tag: number;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const INT64_MAX = 2n ** 63n - 1n;

interface Dialect {
  /** `rows` consecutive integers from 0, as the CTE `n(i)`. */
  series(rows: number): string;
  int(expression: string): string;
  hex16(expression: string): string;
}

const DIALECTS: Record<Engine, Dialect> = {
  postgres: {
    series: (rows) => `n(i) as (select generate_series(0::bigint, ${rows - 1}::bigint))`,
    int: (expression) => `(${expression})::int`,
    hex16: (expression) => `lpad(to_hex(${expression}), 16, '0')`,
  },
  sqlite: {
    series: (rows) => `n(i) as (select 0 union all select i + 1 from n where i < ${rows - 1})`,
    int: (expression) => `(${expression})`,
    hex16: (expression) => `printf('%016x', ${expression})`,
  },
};

/** `length` base62 characters of a non-negative integer, most significant first, as src/ids.ts writes them. */
function base62(d: Dialect, expression: string, length: number): string {
  const parts: string[] = [];
  for (let position = length - 1; position >= 0; position--) {
    const weight = 62n ** BigInt(position);
    // Beyond 64 bits the digit of any value here is 0.
    parts.push(weight > INT64_MAX ? `'0'` : `substr('${BASE62}', ${d.int(`${expression} / ${weight} % 62`)} + 1, 1)`);
  }
  return parts.join(' || ');
}

/** A time-ordered id (src/ids.ts): prefix, 8 characters of the time, a counter in the rest of 25. */
const timeOrderedId = (d: Dialect, prefix: string, time: string, counter: string): string =>
  `'${prefix}' || ${base62(d, `(${time})`, 8)} || ${base62(d, `(${counter})`, 25 - prefix.length - 8)}`;

/** The same id computed here (for the few rows the bench looks up by id). */
function timeOrderedIdOf(prefix: string, time: number, counter: number): string {
  const digits = (value: number, length: number): string => {
    let out = '';
    for (let rest = BigInt(value); out.length < length; rest /= 62n) out = BASE62[Number(rest % 62n)] + out;
    return out;
  };
  return prefix + digits(time, 8) + digits(counter, 25 - prefix.length - 8);
}

const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** The statements that write the history, in order (no parameters). */
export function historySql(engine: Engine, shape: HistoryShape): string[] {
  const d = DIALECTS[engine];
  const s = shape.subscriptionIds.length;
  const step = Math.floor((shape.days * DAY_MS) / shape.events);
  const start = shape.now - step * shape.events;
  const probeEvery = Math.max(shape.failEvery, Math.floor(shape.events / 10 / shape.failEvery) * shape.failEvery);
  const subs = `subs(j, id) as (values ${shape.subscriptionIds.map((id, j) => `(${j}, ${quote(id)})`).join(', ')})`;
  const sinceFirst = [0, ...RETRY_WAITS_MS].map((_, k) => RETRY_WAITS_MS.slice(0, k).reduce((a, b) => a + b, 0));
  const ks = `ks(k, waited) as (values ${sinceFirst.map((wait, k) => `(${k + 1}, ${wait})`).join(', ')})`;
  // Per delivery d: its event i = d / s (created at t), subscription j = d % s, whether it fails, when its
  // first attempt started (a few ms after the commit, as a prompt worker's) and how long each attempt took.
  const perDelivery = `
    select d, i, j, t, failed, failed = 1 and i % ${probeEvery} = 0 as probe, t + 2 + d % 5 as first_start,
           case when failed = 1 then ${FAILED_DURATION_MS} else 8 + d % 17 end as duration
    from (select i as d, i / ${s} as i, i % ${s} as j, ${start} + (i / ${s}) * ${step} as t,
                 case when (i / ${s} + 7 * (i % ${s})) % ${shape.failEvery} = 0 then 1 else 0 end as failed
          from n) as x`;
  const eventId = timeOrderedId(d, 'evt_', 't', 'i');
  const deliveryId = timeOrderedId(d, 'dlv_', 't', 'd');
  const identifier = `${d.hex16(String(shape.tag))} || ${d.hex16('i')}`;
  const events = `
    with recursive ${d.series(shape.events)}
    insert into events (id, name, resource, identifier, payload, created_at, seq)
    select ${eventId}, 'school.created', 'school', ident,
           '{"type":"created","resource":"school","identifier":"' || ident || '"}', t,
           (select last from event_sequence where id = 1) + i + 1
    from (select i, ${start} + i * ${step} as t, ${identifier} as ident from n) as e`;
  // The history's events have their feed positions, as a database that grew over months has: without
  // them PostgreSQL's sequencer would stamp all of them at the service's start, in the measured window.
  const positions = 'update event_sequence set last = (select coalesce(max(seq), 0) from events) where id = 1';
  // Every delivery as it ends; those still retrying are set back to pending after their attempts are in.
  const lastEnd = `first_start + ${FAILED_ATTEMPTS} * duration + ${sinceFirst.at(-1) ?? 0}`;
  const fail = (failed: string, ok: string): string => `case when failed = 1 then ${failed} else ${ok} end`;
  const deliveries = `
    with recursive ${d.series(shape.events * s)}, ${subs}
    insert into deliveries (id, event_id, subscription_id, status, attempt_count, next_attempt_at, lease_owner, lease_until,
                            last_status_code, last_error_class, created_at, updated_at, completed_at)
    select ${deliveryId}, ${eventId}, subs.id, ${fail(`'failed'`, `'succeeded'`)}, ${fail(String(FAILED_ATTEMPTS), '1')},
           done, null, null, ${fail('500', '204')}, ${fail(`'http'`, 'null')}, t, done, done
    from (select p.*, ${fail(lastEnd, 'first_start + duration')} as done from (${perDelivery}) as p) as q
    join subs on subs.j = q.j`;
  const attempts = `
    with recursive ${d.series(shape.events * s)}, ${ks}
    insert into delivery_attempts (id, delivery_id, attempt_no, started_at, duration_ms, status_code, error_class,
                                   error_message, response_body)
    select ${timeOrderedId(d, 'att_', 'started', `d * ${FAILED_ATTEMPTS} + k`)}, ${deliveryId}, k, started, duration,
           ${fail('500', '204')}, ${fail(`'http'`, 'null')}, ${fail(`'HTTP 500'`, 'null')},
           ${fail(`'{"error":"temporarily unavailable"}'`, `''`)}
    from (select p.*, ks.k, first_start + (ks.k - 1) * duration + ks.waited as started
          from (${perDelivery}) as p join ks on ks.k = 1 or p.failed = 1) as a
    where started + duration <= ${shape.now} and (not probe or k <= ${PROBE_ATTEMPTS})`;
  // Probes are the failing deliveries of every probeEvery-th event: few, so listed by id.
  const probes: string[] = [];
  for (let i = 0; i < shape.events; i += probeEvery)
    for (let j = 0; j < s; j++)
      if ((i + 7 * j) % shape.failEvery === 0) probes.push(quote(timeOrderedIdOf('dlv_', start + i * step, i * s + j)));
  const retrying = `
    update deliveries set status = 'pending',
      attempt_count = (select count(*) from delivery_attempts a where a.delivery_id = deliveries.id),
      updated_at = (select max(a.started_at + a.duration_ms) from delivery_attempts a where a.delivery_id = deliveries.id),
      next_attempt_at = ${shape.now + DAY_MS}, completed_at = null
    where status = 'failed' and (completed_at > ${shape.now} or id in (${probes.join(', ') || 'null'}))`;
  return [events, positions, deliveries, attempts, retrying];
}

/**
 * The counters the completions keep (migration 0013), as those completions would have left them:
 * each attempt counted in the hour it ended and each finished delivery in the hour it finished
 * (shard 0); per subscription the last success, the deliveries failed for good since, and the start
 * of a failing streak still open. Skipped on a build without them.
 */
export async function fillCounters(runner: SqlRunner): Promise<boolean> {
  if (!(await hasTable(runner, 'delivery_stats')) || !(await hasColumn(runner, 'subscriptions', 'last_success_at')))
    return false;
  const hour = (column: string): string => `${column} - ${column} % ${HOUR_MS}`;
  const ok = 'status_code >= 200 and status_code < 300';
  await runner.run(`
    insert into delivery_stats (hour, shard, attempts_ok, attempts_failed, succeeded, failed)
    select hour, 0, sum(attempts_ok), sum(attempts_failed), sum(succeeded), sum(failed) from (
      select ${hour('ended')} as hour, sum(case when ${ok} then 1 else 0 end) as attempts_ok,
             sum(case when ${ok} then 0 else 1 end) as attempts_failed, 0 as succeeded, 0 as failed
      from (select started_at + duration_ms as ended, status_code from delivery_attempts) as a group by 1
      union all
      select ${hour('completed_at')}, 0, 0, sum(case when status = 'succeeded' then 1 else 0 end),
             sum(case when status = 'failed' then 1 else 0 end)
      from deliveries where completed_at is not null group by 1
    ) as counted where true group by hour
    on conflict (hour, shard) do update set attempts_ok = delivery_stats.attempts_ok + excluded.attempts_ok,
      attempts_failed = delivery_stats.attempts_failed + excluded.attempts_failed,
      succeeded = delivery_stats.succeeded + excluded.succeeded, failed = delivery_stats.failed + excluded.failed`);
  await runner.run(`
    update subscriptions set last_success_at = (
      select max(completed_at) from deliveries d where d.subscription_id = subscriptions.id and d.status = 'succeeded')`);
  await runner.run(`
    update subscriptions set consecutive_failures = (
      select count(*) from deliveries d where d.subscription_id = subscriptions.id and d.status = 'failed'
        and d.completed_at > coalesce(subscriptions.last_success_at, -1))`);
  await runner.run(`
    update subscriptions set failing_since = (
      select min(a.started_at + a.duration_ms) from deliveries d join delivery_attempts a on a.delivery_id = d.id
      where d.subscription_id = subscriptions.id and d.status <> 'succeeded' and not (a.${ok})
        and a.started_at + a.duration_ms > coalesce(subscriptions.last_success_at, -1))`);
  return true;
}

export interface SeededHistory {
  /** Rows written, per table. */
  rows: Record<string, number>;
  /** The deliveries left pending (probes and those still retrying), with a fingerprint of each row. */
  pending: Map<string, string>;
  seconds: number;
}

/** Writes the history into a database whose service is stopped, then fills the counters. */
export async function seedHistory(runner: SqlRunner, shape: HistoryShape): Promise<SeededHistory> {
  const started = performance.now();
  const statements = historySql(runner.engine, shape);
  if (runner.engine === 'sqlite') {
    await runner.run('pragma synchronous = off');
    await runner.run(`begin immediate; ${statements.join(';\n')}; commit`);
    await fillCounters(runner);
    await runner.run('pragma wal_checkpoint(truncate)');
  } else {
    for (const statement of statements) await runner.run(statement);
    await fillCounters(runner);
    // A database that grew over months has been vacuumed and analysed by autovacuum; one just bulk
    // loaded has not, and autovacuum would do it in the middle of the measurement.
    await runner.run('vacuum analyze events, deliveries, delivery_attempts, subscriptions');
    // Nor would its pages still wait to be written: after a bulk load the checkpoint spreads the
    // writing over minutes (checkpoint_completion_target), i.e. through the measurement. Needs a
    // superuser or pg_checkpoint; without either it is left to the server, as before.
    await runner.run('checkpoint').catch(() => undefined);
  }
  const rows: Record<string, number> = {};
  for (const table of ['events', 'deliveries', 'delivery_attempts'])
    rows[table] = Number((await runner.rows<{ n: number }>(`select count(*) as n from ${table}`))[0]?.n ?? 0);
  return { rows, pending: await pendingRows(runner), seconds: (performance.now() - started) / 1000 };
}

/** Every pending delivery with a fingerprint of its row and its attempts, to show a prune left them alone. */
export async function pendingRows(runner: SqlRunner): Promise<Map<string, string>> {
  const rows = await runner.rows<Record<string, unknown>>(`
    select d.id, d.event_id, d.subscription_id, d.attempt_count, d.next_attempt_at, d.updated_at, d.created_at,
           (select count(*) from delivery_attempts a where a.delivery_id = d.id) as attempts,
           (select count(*) from events e where e.id = d.event_id) as event
    from deliveries d where d.status = 'pending' order by d.id`);
  return new Map(rows.map((row) => [String(row.id), Object.values(row).map(String).join('|')]));
}
