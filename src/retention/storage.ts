/**
 * The storage view: what each bounded table holds and since when, the database's size, the settings
 * in force and the last prune. Every figure is cheap to read (storage-store.ts says how), so the console can
 * show it on demand.
 */

import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import type { Db } from '../db/database.js';
import type { RetentionConfig } from './policy.js';
import { BOUNDED_TABLES, bounds, FAILED_STATUSES } from './policy.js';
import type { StorageView } from './schemas.js';
import type { RetentionService } from './service.js';
import { StorageStore } from './storage-store.js';

export class StorageService {
  readonly store: StorageStore;

  constructor(
    private readonly retention: RetentionService,
    private readonly deps: { db: Db; config: RetentionConfig; clock: Clock },
  ) {
    this.store = new StorageStore(deps.db.dialect);
  }

  async view(): Promise<StorageView> {
    const { db, config, clock } = this.deps;
    const { store } = this;
    const { settings } = this.retention;
    const k = db.kysely;
    const [counts, oldest, size, autoVacuum, last] = await Promise.all([
      store.rowCounts(k, BOUNDED_TABLES),
      store.oldest(k, ['succeeded', ...FAILED_STATUSES]),
      store.size(k),
      this.retention.autoVacuum(),
      this.retention.lastPrune(),
    ]);
    const bound = bounds(settings, config);
    return {
      engine: db.engine,
      databaseBytes: size.bytes,
      freeBytes: size.freeBytes,
      autoVacuum: autoVacuum ?? null,
      tables: BOUNDED_TABLES.map((table) => {
        const counted = counts.get(table) ?? { rows: 0, exact: true };
        const at = oldest[table];
        return {
          table,
          rows: counted.rows,
          rowsExact: counted.exact,
          oldestAt: at === null ? null : isoTime(at),
          bound: table === 'delivery_attempts' ? `${bound.delivery_attempts}; ${bound.response_bodies}` : bound[table],
        };
      }),
      retention: {
        ...settings,
        pruneIntervalSeconds: config.pruneIntervalSeconds,
        pruneBatchSize: config.pruneBatchSize,
        prunePauseMs: config.prunePauseMs,
      },
      lastPrune:
        last === undefined
          ? null
          : {
              startedAt: isoTime(last.startedAt),
              finishedAt: isoTime(last.finishedAt),
              complete: last.complete,
              rows: last.rows,
            },
      generatedAt: isoTime(clock.now()),
    };
  }
}
