/**
 * Retention's /metrics families, registered on the app's registry: rows pruned (this node's counter),
 * the last prune's time (the shared record, so every node reports it) and the database's size, both
 * read at scrape time. A scrape never fails for them: a read that fails leaves the last value.
 */
import { Counter, Gauge } from 'prom-client';
import type { Metrics } from '../observability/metrics.js';
import { PRUNE_TARGETS, type PruneTarget } from './policy.js';

export interface RetentionReads {
  /** The last prune's end, epoch ms; undefined before the first. */
  lastPruneAt(): Promise<number | undefined>;
  databaseBytes(): Promise<number>;
}

/** Installs the families once per registry and returns what counts pruned rows. */
export function installRetentionMetrics(
  metrics: Metrics,
  reads: RetentionReads,
): (rows: Record<PruneTarget, number>) => void {
  const registers = [metrics.registry];
  const existing = metrics.registry.getSingleMetric('shelfmark_pruned_rows_total');
  const pruned =
    existing instanceof Counter
      ? (existing as Counter<'table'>)
      : new Counter({
          name: 'shelfmark_pruned_rows_total',
          help: 'Rows removed by retention pruning on this node, by table (response_bodies: answers cleared on attempts)',
          labelNames: ['table'] as const,
          registers,
        });
  if (existing === undefined) {
    // Every table present from the start (0), so rate() and alerts never see a series appear.
    for (const table of PRUNE_TARGETS) pruned.inc({ table }, 0);
    new Gauge({
      name: 'shelfmark_last_prune_timestamp_seconds',
      help: 'When the last retention prune finished (any node), Unix time; 0 before the first',
      registers,
      async collect() {
        const at = await reads.lastPruneAt().catch(() => null);
        if (at !== null) this.set((at ?? 0) / 1000);
      },
    });
    new Gauge({
      name: 'shelfmark_database_size_bytes',
      help: "Size of the database: SQLite page_count × page_size, PostgreSQL its schema's tables with indexes and TOAST",
      registers,
      async collect() {
        // Unreadable (the database briefly away): the last value stands.
        const bytes = await reads.databaseBytes().catch(() => undefined);
        if (bytes !== undefined) this.set(bytes);
      },
    });
  }
  return (rows) => {
    for (const [table, count] of Object.entries(rows)) if (count > 0) pruned.inc({ table }, count);
  };
}
