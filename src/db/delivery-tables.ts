/**
 * The outbox's and the delivery log's tables as Kysely sees them (schema.ts composes the database):
 * events, their deliveries, each attempt, and the hourly counters the completions keep. Times are epoch
 * milliseconds, as everywhere in the schema.
 */
import type { ColumnType, Generated } from 'kysely';

export interface EventsTable {
  id: string;
  /** Canonical event name, e.g. list.status. */
  name: string;
  resource: string;
  identifier: string;
  /** The exact JSON body sent to receivers. */
  payload: string;
  created_at: number;
  /** Offer events: the offer's EAN, for a replay's filter (migration 0016); null for other events. */
  ean: Generated<string | null>;
  /**
   * The event's place in the feed (migration 0016), given once it is visible: by the writer on SQLite,
   * by the feed's sequencer after the commit on PostgreSQL (src/events/feed-sequence.ts).
   */
  seq?: ColumnType<number | null, number | undefined, never>;
}

export interface DeliveriesTable {
  id: string;
  event_id: string;
  subscription_id: string;
  status: string;
  /** Scheduled attempts made: the position on the retry schedule. */
  attempt_count: number;
  /** Attempts made by hand ("Retry now", migration 0018); they take no step of the schedule. */
  manual_attempts: Generated<number>;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_status_code: number | null;
  last_error_class: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

export interface DeliveryAttemptsTable {
  id: string;
  delivery_id: string;
  attempt_no: number;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error_class: string | null;
  error_message: string | null;
  response_body: string | null;
}

/**
 * Completions and attempts counted per hour where they are recorded (migration 0013): the overview
 * and the /metrics totals read these rows instead of the history. Rows of one hour are summed over
 * `shard`, which spreads concurrent writers.
 */
export interface DeliveryStatsTable {
  /** Start of the hour, epoch ms. */
  hour: number;
  shard: number;
  /** Attempts answered 2xx / not. */
  attempts_ok: Generated<number>;
  attempts_failed: Generated<number>;
  /** Deliveries that completed succeeded / failed for good. */
  succeeded: Generated<number>;
  failed: Generated<number>;
}

/**
 * One row per process that runs delivery workers (migration 0019), refreshed every
 * WORKER_HEARTBEAT_SECONDS; a row not refreshed for three of those is a worker gone missing.
 */
export interface WorkerHeartbeatsTable {
  /** `wrk_…`, minted when the process starts its first worker. */
  id: string;
  host: string;
  pid: number;
  /** The process's role: `worker` or `all`. */
  role: string;
  started_at: number;
  last_seen_at: number;
  /** Set when the process stopped its workers cleanly; null while it runs (or after a crash). */
  stopped_at: number | null;
}
