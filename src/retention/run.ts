/**
 * One prune, batch by batch: each batch is one short transaction of at most PRUNE_BATCH_SIZE rows,
 * followed by a pause (service.ts paces it) so the delivery path's writes go between batches, and a
 * renewal of the lock. Order: the finished deliveries of each class with their attempts (attempts first), then
 * the events no delivery refers to any more, then the response bodies, the small tables and the audit log.
 */
import { pruneAuditBatch } from '../audit/retention.js';
import type { Executor } from '../db/database.js';
import { getSetting, putSetting } from '../db/settings.js';
import type { Cursor } from '../vocabulary/paging.js';
import type { Held } from './lock.js';
import { deleteChunks, deleteStillFinished } from './paced-batches.js';
import { type Cutoffs, FAILED_STATUSES, type PruneTarget } from './policy.js';
import type { Batch, RetentionStore } from './store.js';

/** Attempts up to this id have had their response bodies cleared (ids sort in their order of recording). */
export const BODIES_SETTING = 'retention.bodies_after';

export interface PruneItem {
  table: PruneTarget;
  reason: string;
  rows: number;
}

export interface RunOptions {
  batchSize: number;
  /** Deliveries deleted per transaction (paced-batches.ts); the whole batch when absent. */
  deleteChunk?: number;
  /** Waits between batches, given how long the last one held its transaction (ms). */
  pause: (heldMs: number) => Promise<void>;
  /** True once the prune should end early (shutdown); what was pruned so far is kept and reported. */
  stopped: () => boolean;
  /** Told between two transactions, with totals() and `transactions` up to date. */
  onProgress?: () => void;
}

/** Thrown between batches when the prune must end (stopped, or its lease lost). */
class Interrupted extends Error {}

export class PruneRun {
  readonly items: PruneItem[] = [];
  complete = true;
  /** Transactions run so far: what the time a prune takes goes by (progress.ts). */
  transactions = 0;
  /** How long the last transaction took. */
  private heldMs = 0;

  constructor(
    private readonly store: RetentionStore,
    private readonly held: Held,
    private readonly cut: Cutoffs,
    private readonly reasons: Record<string, string>,
    private readonly options: RunOptions,
  ) {}

  async run(): Promise<void> {
    try {
      await this.deliveries('succeeded', ['succeeded'], this.cut.succeeded);
      for (const status of FAILED_STATUSES) await this.deliveries(status, [status], this.cut.failed);
      await this.events();
      await this.bodies();
      const { cut, store } = this;
      await this.simple('delivery_stats', cut.stats, (trx, n, c) =>
        store.deleteBelow(trx, 'delivery_stats', 'hour', c, n),
      );
      await this.simple('idempotency_keys', cut.idempotencyExpired, (trx, n, c) =>
        store.deleteBelow(trx, 'idempotency_keys', 'expires_at', c, n, true),
      );
      await this.simple('web_sessions', cut.sessionsIdle, (trx, n, c) =>
        store.deleteBelow(trx, 'web_sessions', 'last_seen_at', c, n),
      );
      await this.simple('portal_links', cut.linksExpired, (trx, n, c) => store.deleteLinks(trx, c, n));
      for (const log of ['offer_changes', 'school_changes'] as const)
        await this.simple(log, cut.changes, (trx, n, c) => store.deleteChanges(trx, log, c, n));
      await this.simple('audit_records', cut.audit, (trx, n, c) => pruneAuditBatch(trx, c, n));
    } catch (error) {
      if (!(error instanceof Interrupted)) throw error;
      this.complete = false;
    }
  }

  /** Rows pruned per target, every target present. */
  totals(): Record<PruneTarget, number> {
    const totals = {} as Record<PruneTarget, number>;
    for (const item of this.items) totals[item.table] = (totals[item.table] ?? 0) + item.rows;
    return totals;
  }

  private item(table: PruneTarget, key: string): PruneItem {
    const item = { table, reason: this.reasons[key] ?? key, rows: 0 };
    this.items.push(item);
    return item;
  }

  private async transaction<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await this.held.db.transaction().execute(work);
    } finally {
      this.heldMs = performance.now() - started;
      this.transactions++;
    }
  }

  /** Between batches: end if told to, pause, and keep the lock. */
  private async between(): Promise<void> {
    this.options.onProgress?.();
    if (this.options.stopped()) throw new Interrupted();
    await this.options.pause(this.heldMs);
    if (this.options.stopped() || !(await this.held.renew())) throw new Interrupted();
  }

  /** Walks `cursor`-ordered batches until one comes back short. */
  private async walk(step: (after: Cursor | undefined) => Promise<Batch>): Promise<void> {
    let after: Cursor | undefined;
    for (;;) {
      const batch = await step(after);
      after = batch.last ?? after;
      if (batch.ids.length < this.options.batchSize) return;
      await this.between();
    }
  }

  private async deliveries(key: string, statuses: readonly string[], cutoff: number | undefined): Promise<void> {
    const deliveries = this.item('deliveries', key);
    const attempts = this.item('delivery_attempts', `${key}:attempts`);
    if (cutoff === undefined) return;
    const count = (deleted: { deliveries: number; attempts: number }): void => {
      deliveries.rows += deleted.deliveries;
      attempts.rows += deleted.attempts;
    };
    for (const status of statuses)
      await this.walk(async (after) => {
        // Read outside any transaction, deleted in transactions that lock and re-check their share
        // (paced-batches.ts): paced, short ones; unpaced, the whole batch in one.
        const batch = await this.store.finishedBatch(this.held.db, status, cutoff, after, this.options.batchSize);
        const chunks = deleteChunks(batch.ids, this.options.deleteChunk ?? this.options.batchSize);
        for (const [index, chunk] of chunks.entries()) {
          if (index > 0) await this.between();
          count(await this.transaction((trx) => deleteStillFinished(trx, chunk, status, cutoff, this.store.dialect)));
        }
        return batch;
      });
  }

  private async events(): Promise<void> {
    const item = this.item('events', 'events');
    const cutoff = this.cut.events;
    if (cutoff === undefined) return;
    await this.walk((after) =>
      this.transaction(async (trx) => {
        const batch = await this.store.eventBatch(trx, cutoff, after, this.options.batchSize);
        item.rows += await this.store.deleteUnreferencedEvents(trx, batch.ids);
        return batch;
      }),
    );
  }

  /**
   * Clears the answers on attempts started before the cutoff, walking the attempts in id order from
   * where the last prune stopped (kept in settings), so each attempt is visited once, not every hour.
   * The walk ends at the first attempt started after the cutoff.
   */
  private async bodies(): Promise<void> {
    const item = this.item('response_bodies', 'response_bodies');
    const cutoff = this.cut.responseBodies;
    if (cutoff === undefined) return;
    let after = (await getSetting(this.held.db, BODIES_SETTING)) ?? '';
    for (;;) {
      const done = await this.transaction(async (trx) => {
        const rows = await this.store.attemptsAfter(trx, after, this.options.batchSize);
        const young = rows.findIndex((row) => Number(row.started_at) >= cutoff);
        const old = young < 0 ? rows : rows.slice(0, young);
        item.rows += await this.store.clearBodies(
          trx,
          old.map((row) => row.id),
        );
        const last = old.at(-1);
        if (last !== undefined) {
          after = last.id;
          await putSetting(trx, BODIES_SETTING, after);
        }
        return young >= 0 || rows.length < this.options.batchSize;
      });
      if (done) return;
      await this.between();
    }
  }

  /** A table pruned by one repeated statement deleting up to a batch of rows below `cutoff`. */
  private async simple(
    table: PruneTarget,
    cutoff: number | undefined,
    remove: (trx: Executor, limit: number, cutoff: number) => Promise<number>,
  ): Promise<void> {
    const item = this.item(table, table);
    if (cutoff === undefined) return;
    for (;;) {
      const removed = await this.transaction((trx) => remove(trx, this.options.batchSize, cutoff));
      item.rows += removed;
      if (removed < this.options.batchSize) return;
      await this.between();
    }
  }
}
