/**
 * History written straight into the tables, with chosen ids and times, so a test can say exactly
 * which rows a prune keeps: a client and subscription to hang deliveries on, events, deliveries in
 * any status with their attempts, and the small tables' rows.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Db, Engine } from '../../src/db/database.js';
import { freshDatabase, type TestDatabase } from '../support/engines.js';

export const DAY = 86_400_000;
/** The tests' now: the history is laid out backwards from it. */
export const NOW = Date.UTC(2026, 8, 1, 12, 0, 0);

/** A fresh database with the client and subscription the history hangs on, and a clock at NOW. */
export async function historyFixture(
  engine: Engine,
): Promise<{ database: TestDatabase; clock: ManualClock; history: History }> {
  const database = await freshDatabase(engine);
  return { database, clock: new ManualClock(NOW), history: await new History(database.db, NOW).setUp() };
}

/** A history fixture for each test of the calling describe block, handed to `take`; dropped after the test. */
export function useHistoryFixture(
  engine: Engine,
  take: (fixture: { database: TestDatabase; clock: ManualClock; history: History }) => void,
): void {
  let database: TestDatabase | undefined;
  beforeEach(async () => {
    const fixture = await historyFixture(engine);
    database = fixture.database;
    take(fixture);
  });
  afterEach(async () => database?.drop());
}

/** The retention settings when the environment sets none: what the settings and the storage report both show. */
export const DEFAULT_RETENTION = {
  deliveryDays: 30,
  failedDeliveryDays: 90,
  eventDays: 90,
  responseBodyDays: 7,
  statsDays: 90,
  auditDays: 400,
};

/** A prune record's counts for the tables the standard histories of the prune tests hold nothing to prune in. */
export const NONE_FROM_THE_SMALL_TABLES = {
  delivery_stats: 0,
  idempotency_keys: 0,
  web_sessions: 0,
  portal_links: 0,
  offer_changes: 0,
  school_changes: 0,
  audit_records: 0,
};

/** What a prune with the defaults takes from the standard history of the prune tests (rows > 0 only). */
export const PRUNED_WITH_DEFAULTS = [
  { table: 'deliveries', reason: 'succeeded, completed more than 30 days ago', rows: 1 },
  { table: 'delivery_attempts', reason: 'of succeeded deliveries completed more than 30 days ago', rows: 1 },
  { table: 'deliveries', reason: 'failed, completed more than 90 days ago', rows: 1 },
  { table: 'delivery_attempts', reason: 'of failed deliveries completed more than 90 days ago', rows: 5 },
  { table: 'events', reason: 'no delivery left, created more than 90 days ago', rows: 2 },
  { table: 'response_bodies', reason: 'cleared on attempts started more than 7 days ago', rows: 15 },
];

export interface DeliverySpec {
  id: string;
  event: string;
  status: 'pending' | 'succeeded' | 'failed';
  createdAt: number;
  /** Null for a pending delivery. */
  completedAt: number | null;
  /** Attempts made (each recorded with a 4-character body); their ids are `<id>_a<n>`. */
  attempts?: number;
}

export class History {
  private subscription = 'sub_retention';

  constructor(
    private readonly db: Db,
    private readonly now: number,
  ) {}

  /** The client and subscription every delivery belongs to. */
  async setUp(): Promise<this> {
    const now = this.now;
    await this.db.kysely
      .insertInto('clients')
      .values({
        id: 'cli_retention',
        client_id: 'smc_retention',
        name: 'Retention shop',
        secret_hash: 'x',
        secret_version: 1,
        tokens_valid_after: 0,
        scopes: 'webhooks:manage',
        webhook_secret: 'whsec_x',
        previous_webhook_secret: null,
        previous_webhook_secret_expires_at: null,
        revoked_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await this.db.kysely
      .insertInto('subscriptions')
      .values({
        id: this.subscription,
        client_ref: 'cli_retention',
        notification_url: 'https://shop.example/hooks',
        event: 'list.updated',
        event_as_given: 'list.updated',
        status: 'active',
        disabled_reason: null,
        failing_since: null,
        last_success_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return this;
  }

  async event(id: string, createdAt: number): Promise<void> {
    await this.db.kysely
      .insertInto('events')
      .values({
        id,
        name: 'list.updated',
        resource: 'list',
        identifier: 'f'.repeat(32),
        payload: JSON.stringify({ type: 'list.updated', resource: 'list', identifier: 'f'.repeat(32) }),
        created_at: createdAt,
      })
      .execute();
  }

  async delivery(spec: DeliverySpec): Promise<void> {
    const attempts = spec.attempts ?? (spec.status === 'pending' ? 0 : 1);
    await this.db.kysely
      .insertInto('deliveries')
      .values({
        id: spec.id,
        event_id: spec.event,
        subscription_id: this.subscription,
        status: spec.status,
        attempt_count: attempts,
        next_attempt_at: spec.status === 'pending' ? this.now + DAY : (spec.completedAt ?? spec.createdAt),
        lease_owner: null,
        lease_until: null,
        last_status_code: attempts === 0 ? null : spec.status === 'failed' ? 500 : 200,
        last_error_class: spec.status === 'failed' ? 'http' : null,
        created_at: spec.createdAt,
        updated_at: spec.completedAt ?? spec.createdAt,
        completed_at: spec.completedAt,
      })
      .execute();
    for (let n = 1; n <= attempts; n++)
      await this.attempt(`${spec.id}_a${n}`, spec.id, n, spec.createdAt + (n - 1) * 60_000);
  }

  async attempt(id: string, deliveryId: string, attemptNo: number, startedAt: number, body = 'body'): Promise<void> {
    await this.db.kysely
      .insertInto('delivery_attempts')
      .values({
        id,
        delivery_id: deliveryId,
        attempt_no: attemptNo,
        started_at: startedAt,
        duration_ms: 12,
        status_code: 200,
        error_class: null,
        error_message: null,
        response_body: body,
      })
      .execute();
  }
}

/** The values of `column` in `table`, sorted. */
export async function column(db: Db, table: string, name = 'id'): Promise<string[]> {
  const { rows } = await sql<{ v: string | number }>`select ${sql.ref(name)} as v from ${sql.table(table)}`.execute(
    db.kysely,
  );
  return rows.map((row) => String(row.v)).sort();
}

export async function rowCount(db: Db, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db.kysely);
  return Number(rows[0]?.n ?? 0);
}
