/**
 * Every schema migration, one file each, in the order they apply. The names are recorded in the
 * database (table shelfmark_migrations), so a shipped migration is never renamed or edited: add the
 * next file and list it here. The runner is src/db/migrate.ts.
 */
import type { Migration } from 'kysely';
import type { Engine } from '../database.js';
import { initial } from './0001_initial.js';
import { deliveryLeases } from './0002_delivery_leases.js';
import { offerChanges } from './0003_offer_changes.js';
import { idempotencyKeys } from './0004_idempotency_keys.js';
import { webSessions } from './0005_web_sessions.js';
import { offerImportKeys } from './0006_offer_import_keys.js';
import { offerIdentifiers } from './0007_offer_identifiers.js';
import { subscriptionNotices } from './0008_subscription_notices.js';
import { deliveryPartialIndexes } from './0009_delivery_partial_indexes.js';
import { schoolChanges } from './0010_school_changes.js';
import { deliveryLeasesUnindexed } from './0011_delivery_leases_unindexed.js';
import { sqliteDueInInsertionOrder } from './0012_sqlite_due_in_insertion_order.js';
import { history } from './0013_history.js';
import { audit } from './0014_audit.js';
import { operators } from './0015_operators.js';
import { eventFeed } from './0016_event_feed.js';
import { completionKeepsSubscriptionIndex } from './0017_completion_keeps_subscription_index.js';
import { manualAttempts } from './0018_manual_attempts.js';
import { workerHeartbeats } from './0019_worker_heartbeats.js';
import { offerChangesPerStatement } from './0020_offer_changes_per_statement.js';
import { offerChangesRecordedByWriter } from './0021_offer_changes_recorded_by_writer.js';

/** Every migration in the order it applies, by the name recorded for it. */
export function migrations(engine: Engine): [string, Migration][] {
  return [
    ['0001_initial', initial(engine)],
    ['0002_delivery_leases', deliveryLeases],
    ['0003_offer_changes', offerChanges(engine)],
    ['0004_idempotency_keys', idempotencyKeys],
    ['0005_web_sessions', webSessions],
    ['0006_offer_import_keys', offerImportKeys],
    ['0007_offer_identifiers', offerIdentifiers(engine)],
    ['0008_subscription_notices', subscriptionNotices],
    ['0009_delivery_partial_indexes', deliveryPartialIndexes],
    ['0010_school_changes', schoolChanges(engine)],
    ['0011_delivery_leases_unindexed', deliveryLeasesUnindexed(engine)],
    ['0012_sqlite_due_in_insertion_order', sqliteDueInInsertionOrder(engine)],
    ['0013_history', history],
    ['0014_audit', audit],
    ['0015_operators', operators],
    ['0016_event_feed', eventFeed(engine)],
    ['0017_completion_keeps_subscription_index', completionKeepsSubscriptionIndex],
    ['0018_manual_attempts', manualAttempts],
    ['0019_worker_heartbeats', workerHeartbeats],
    ['0020_offer_changes_per_statement', offerChangesPerStatement(engine)],
    ['0021_offer_changes_recorded_by_writer', offerChangesRecordedByWriter(engine)],
  ];
}
