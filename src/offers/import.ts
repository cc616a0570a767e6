/**
 * `offers import <file.csv>`: all or nothing, in ONE transaction. Rows are validated as they
 * are read (import-csv.ts) and written in batches as they come, two at a time, each batch with a few
 * statements whose text does not depend on its size (db/bulk-insert.ts); its offer.* events and their
 * deliveries are written with it (the outbox's flush). The first bad row stops the writing; the rest
 * of the file is still read, so every bad row is reported, and the transaction is rolled back:
 * nothing is imported.
 *
 * Each row has a stable key (import-csv.ts). A second run of the same file finds its offers by these
 * keys and updates them (or leaves them unchanged) instead of adding duplicates.
 * One `offers.imported` audit record names the file and what it created and changed.
 */

import type { Initiator } from '../audit/initiator.js';
import type { Clock } from '../clock.js';
import type { Executor } from '../db/database.js';
import type { Emit, EventfulWork } from '../events/outbox.js';
import { ids } from '../ids.js';
import { contentChanged } from './content.js';
import { offerEvents, publishedAt } from './events.js';
import type { CheckedRow, OfferImportRow, RowError } from './import-csv.js';
import { ChangedEans, ImportStore, type NewImportedOffer, newOfferRow } from './import-store.js';

export { type OfferImportRow, parseOffersCsv, type RowError } from './import-csv.js';

/**
 * Rows a batch: per-statement costs (planning, the fan-out's look-up, the change-log trigger's NOTIFY,
 * a round trip) paid once for this many; 5,000 saved no more (docs/performance.md#decisions).
 */
export const IMPORT_BATCH_SIZE = 2000;

/** Batches written at once: the next one is built while this one is in the database. */
const WRITES_IN_FLIGHT = 2;

export interface ImportSummary {
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
}

/** `total` is the number of rows expected (the file's lines), for the rate and the ETA. */
export type Progress = (done: number, total: number) => void;

/** Thrown inside the transaction to roll it back when a row was bad; carries every bad row. */
class Refused extends Error {
  constructor(readonly errors: RowError[]) {
    super('the import was refused');
  }
}

async function* fromArray(rows: readonly OfferImportRow[]): AsyncGenerator<CheckedRow> {
  for (const row of rows) yield { row };
}

export class OfferImporter {
  constructor(
    private readonly work: EventfulWork,
    private readonly clock: Clock,
  ) {}

  /** Imports rows already validated (parseOffersCsv), in one transaction. */
  async import(
    rows: readonly OfferImportRow[],
    by: { initiator: Initiator; file: string },
    onProgress: Progress = () => undefined,
    batchSize = IMPORT_BATCH_SIZE,
  ): Promise<ImportSummary> {
    const result = await this.importChecked(fromArray(rows), by, onProgress, rows.length, batchSize);
    if ('errors' in result) throw new Error('validated rows were refused');
    return result.imported;
  }

  /**
   * Imports rows as they are read and checked: everything, or (when any row is bad) nothing, and
   * every bad row. `expected` is the progress total (the rows the file is thought to hold).
   */
  async importChecked(
    rows: AsyncIterable<CheckedRow>,
    by: { initiator: Initiator; file: string },
    onProgress: Progress = () => undefined,
    expected = 0,
    batchSize = IMPORT_BATCH_SIZE,
  ): Promise<{ imported: ImportSummary } | { errors: RowError[] }> {
    try {
      const imported = await this.work.run(by.initiator, async ({ trx, emit, flush, record }) => {
        const summary: ImportSummary = { rows: 0, created: 0, updated: 0, unchanged: 0 };
        // Where the triggers can leave the change log to the import (PostgreSQL), it records its
        // changes at its end: one entry per EAN changed, or one for everything when there are many.
        const changed = (await this.work.dialect.recordOfferChangesByWriter(trx)) ? new ChangedEans() : undefined;
        const errors: RowError[] = [];
        let batch: OfferImportRow[] = [];
        // Up to WRITES_IN_FLIGHT batches are written at once, their statements queued in file order on
        // the transaction's connection: a batch's rows and events are built while the one before it is
        // still in the database, and the next one is read and checked meanwhile. Keys are unique in a
        // file (import-csv.ts), so no batch depends on another's writes.
        const inFlight: Promise<void>[] = [];
        // The first failure in time is the cause; on PostgreSQL the other batch then fails as well.
        let failure: { error: unknown } | undefined;
        let written = 0;
        const write = async (rows: readonly OfferImportRow[]): Promise<void> => {
          const counts = await this.writeBatch(trx, rows, emit, changed);
          await flush();
          summary.created += counts.created;
          summary.updated += counts.updated;
          summary.unchanged += rows.length - counts.created - counts.updated;
          written += rows.length;
          onProgress(written, Math.max(expected, summary.rows));
        };
        const startWrite = async (): Promise<void> => {
          if (failure !== undefined) throw failure.error;
          if (batch.length === 0) return;
          const rows = batch;
          batch = [];
          if (inFlight.length >= WRITES_IN_FLIGHT) await inFlight.shift();
          const writing = write(rows);
          writing.catch((error: unknown) => {
            failure ??= { error };
          });
          inFlight.push(writing);
        };
        try {
          for await (const checked of rows) {
            if ('error' in checked) {
              errors.push(checked.error);
              continue;
            }
            summary.rows++;
            // After a bad row nothing more is written: the rest is only checked, to report every bad row.
            if (errors.length > 0) continue;
            batch.push(checked.row);
            if (batch.length >= batchSize) await startWrite();
          }
          if (errors.length === 0) await startWrite();
        } catch (error) {
          failure ??= { error };
        }
        // Every statement has ended before the transaction commits or rolls back: none may run after it.
        await Promise.allSettled(inFlight.splice(0));
        if (failure !== undefined) throw failure.error;
        if (errors.length > 0) throw new Refused(errors);
        if (changed !== undefined)
          await new ImportStore(trx, this.work.dialect).recordChanges(changed.entries(), this.clock.now());
        if (summary.created + summary.updated > 0)
          record('offers.imported', by.file, {
            rows: { before: null, after: `1-${summary.rows} of ${summary.rows}` },
            created: { before: null, after: summary.created },
            updated: { before: null, after: summary.updated },
          });
        return summary;
      });
      return { imported };
    } catch (error) {
      if (error instanceof Refused) return { errors: error.errors };
      throw error;
    }
  }

  /** One batch: its keys looked up, new offers inserted, changed ones updated, their events emitted. */
  private async writeBatch(
    trx: Executor,
    batch: readonly OfferImportRow[],
    emit: Emit,
    changed: ChangedEans | undefined,
  ): Promise<{ created: number; updated: number }> {
    if (batch.length === 0) return { created: 0, updated: 0 };
    const store = new ImportStore(trx, this.work.dialect);
    const existing = await store.findByKeys(batch.map((row) => row.key));
    const now = this.clock.now();
    const fresh: NewImportedOffer[] = [];
    let updated = 0;
    for (const row of batch) {
      const found = existing.get(row.key);
      if (found === undefined) {
        const { content } = row;
        const offer = newOfferRow(content, ids.resourceIdentifier(), publishedAt(undefined, content.status, now), now);
        fresh.push({ key: row.key, offer });
        changed?.add(offer.ean);
        for (const event of offerEvents(undefined, offer)) emit(event);
      } else if (contentChanged(found, row.content)) {
        const changes = { ...row.content, published_at: publishedAt(found, row.content.status, now) };
        await store.update(found.id, { ...changes, updated_at: now });
        changed?.add(found.ean).add(changes.ean);
        for (const event of offerEvents(found, { ...found, ...changes })) emit(event);
        updated++;
      }
    }
    await store.insert(fresh);
    return { created: fresh.length, updated };
  }
}
