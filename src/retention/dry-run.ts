/**
 * What a prune would remove now, counted with the same conditions as run.ts removes with: the items
 * of `shelfmark prune --dry-run`, and what a watched prune measures its progress against. Changes
 * nothing and takes no lock.
 */
import { countPrunableAuditRecords } from '../audit/retention.js';
import type { Executor } from '../db/database.js';
import { getSetting } from '../db/settings.js';
import { type Cutoffs, FAILED_STATUSES, type PruneTarget } from './policy.js';
import { BODIES_SETTING, type PruneItem } from './run.js';
import { type PrunableClass, prunableDelivery, type RetentionStore } from './store.js';

export async function countPrunable(
  k: Executor,
  store: RetentionStore,
  cut: Cutoffs,
  reasons: Record<string, string>,
): Promise<PruneItem[]> {
  const items: PruneItem[] = [];
  const add = (table: PruneTarget, key: string, rows: number): void => {
    items.push({ table, reason: reasons[key] ?? key, rows });
  };
  const classes: PrunableClass[] = [];
  for (const [key, statuses, cutoff] of [
    ['succeeded', ['succeeded'], cut.succeeded],
    ...FAILED_STATUSES.map((status) => [status, [status], cut.failed] as const),
  ] as const) {
    const counted =
      cutoff === undefined ? { deliveries: 0, attempts: 0 } : await store.countFinished(k, statuses, cutoff);
    if (cutoff !== undefined) classes.push({ statuses, cutoff });
    add('deliveries', key, counted.deliveries);
    add('delivery_attempts', `${key}:attempts`, counted.attempts);
  }
  const { events, responseBodies: bodies, stats, idempotencyExpired, sessionsIdle, linksExpired, changes } = cut;
  // The events and bodies a prune would reach are those of the deliveries it keeps.
  add(
    'events',
    'events',
    events === undefined ? 0 : await store.countEvents(k, events, prunableDelivery('d', classes)),
  );
  const after = (await getSetting(k, BODIES_SETTING)) ?? '';
  add(
    'response_bodies',
    'response_bodies',
    bodies === undefined ? 0 : await store.countBodies(k, after, bodies, prunableDelivery('d', classes)),
  );
  add(
    'delivery_stats',
    'delivery_stats',
    stats === undefined ? 0 : await store.countBelow(k, 'delivery_stats', 'hour', stats),
  );
  add(
    'idempotency_keys',
    'idempotency_keys',
    await store.countBelow(k, 'idempotency_keys', 'expires_at', idempotencyExpired, true),
  );
  add('web_sessions', 'web_sessions', await store.countBelow(k, 'web_sessions', 'last_seen_at', sessionsIdle));
  add('portal_links', 'portal_links', await store.countLinks(k, linksExpired));
  for (const log of ['offer_changes', 'school_changes'] as const)
    add(log, log, await store.countChanges(k, log, changes));
  add('audit_records', 'audit_records', cut.audit === undefined ? 0 : await countPrunableAuditRecords(k, cut.audit));
  return items;
}
