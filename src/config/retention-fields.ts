/**
 * The retention and pruning settings of the configuration schema (schema.ts spreads them in): how long
 * each growing table is kept and how the pruner is paced. See docs/operating/retention.md.
 */
import { Type } from '@sinclair/typebox';
import { int } from './fields.js';

export const RETENTION_FIELDS = {
  deliveryRetentionDays: int(
    'DELIVERY_RETENTION_DAYS',
    30,
    0,
    36_500,
    'days a succeeded delivery and its attempts are kept after it completed; `0` = forever (see [Retention](retention.md))',
  ),
  failedDeliveryRetentionDays: int(
    'FAILED_DELIVERY_RETENTION_DAYS',
    90,
    0,
    36_500,
    'days a failed (abandoned) delivery and its attempts are kept after it completed; `0` = forever. Pending deliveries, retries included, are never pruned',
  ),
  eventRetentionDays: Type.Union([Type.Integer({ minimum: 0, maximum: 36_500 }), Type.Undefined()], {
    env: 'EVENT_RETENTION_DAYS',
    parse: 'integer',
    minimum: 0,
    maximum: 36_500,
    shown: 'the larger of the two above (`0` if either is `0`)',
    accepts: 'a whole number from 0 to 36500',
    description: 'days an event is kept; older events go once no kept delivery refers to them. `0` = forever',
  }),
  responseBodyRetentionDays: int(
    'RESPONSE_BODY_RETENTION_DAYS',
    7,
    0,
    36_500,
    "days the first 4 KB of a receiver's answer stay on an attempt; then the body is cleared and the attempt's status, timing and error kept. `0` = as long as the attempt",
  ),
  deliveryStatsRetentionDays: int(
    'DELIVERY_STATS_RETENTION_DAYS',
    90,
    0,
    36_500,
    'days the hourly delivery counters (the console charts) are kept; `0` = forever',
  ),
  auditRetentionDays: int(
    'AUDIT_RETENTION_DAYS',
    400,
    0,
    36_500,
    "days an audit record is kept; a prune removes the oldest and keeps the last one's hash as the chain's anchor, so `npx shelfmark audit verify` still checks the rest. `0` = forever (see [Operators and audit](operators-and-audit.md))",
  ),
  pruneIntervalSeconds: int(
    'PRUNE_INTERVAL_SECONDS',
    3600,
    0,
    7 * 86_400,
    'how often the worker role prunes (one node at a time; the first run a minute after start). `0` = never by itself, only `npx shelfmark prune`',
  ),
  pruneBatchSize: int(
    'PRUNE_BATCH_SIZE',
    1000,
    10,
    100_000,
    'deliveries a prune deletes per transaction, with their attempts (about 2,000 rows; SQLite: about 7 ms of write lock); events and other rows as many',
  ),
  prunePauseMs: int(
    'PRUNE_PAUSE_MS',
    100,
    0,
    60_000,
    "pause between a prune's transactions, so the delivery path's writes go between them; at least 100 times the transaction's own duration (on SQLite the prune holds the write lock about 1 % of the time; on PostgreSQL its deletes take CPU and WAL from the deliveries about 1 % of the time). `0` = no pause at all (a maintenance window)",
  ),
};
