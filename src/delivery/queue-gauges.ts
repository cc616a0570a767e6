/**
 * The delivery-queue gauges of /metrics, read from the database at scrape time (never on the request
 * path): deliveries per status (every status, 0 when none), and the pending backlog with the age of
 * its oldest row.
 */
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { Metrics } from '../ops/metrics.js';
import { DELIVERY_STATUSES } from './model.js';

export function installQueueGauges(metrics: Metrics, db: Db, clock: Clock): void {
  const kysely = db.kysely;
  metrics.deliveryCounts = async () => {
    const rows = await kysely
      .selectFrom('deliveries')
      .select((eb) => ['status', eb.fn.countAll<number | string>().as('count')])
      .groupBy('status')
      .execute();
    const counts = new Map<string, number>(DELIVERY_STATUSES.map((status) => [status, 0]));
    // PostgreSQL returns count(*) as bigint text unless parsed; Number() covers both engines.
    for (const row of rows) counts.set(row.status, Number(row.count));
    return [...counts];
  };

  metrics.queueState = async () => {
    const row = await kysely
      .selectFrom('deliveries')
      .select((eb) => [eb.fn.countAll<number | string>().as('pending'), eb.fn.min('created_at').as('oldest')])
      .where('status', '=', 'pending')
      .executeTakeFirst();
    const oldest = row?.oldest;
    return {
      pending: Number(row?.pending ?? 0),
      oldestCreatedAt: oldest === null || oldest === undefined ? null : Number(oldest),
      now: clock.now(),
    };
  };
}
