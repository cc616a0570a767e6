/**
 * `offers import <file.csv>`: every row is validated before anything is written (one bad row and
 * nothing is imported), then rows are written in batches, each batch in one transaction.
 *
 * Columns (header row required, in whatever order): ean, price (seller price in euros, dot decimals),
 * condition, and optionally status (default published), remarks, key.
 * Each row has a stable key: the `key` column when given, else `<ean>#<n>` for the n-th row with
 * that EAN in the file. A second run of the same file finds its offers by these keys and updates
 * them (or leaves them unchanged) instead of adding duplicates.
 * Each batch is one outbox transaction: its offer.* events and their deliveries (one fan-out
 * statement per batch, see events/fan-out.ts) commit with its rows, so a crash loses neither.
 */

import { parse } from 'csv-parse/sync';
import type { Initiator } from '../audit/initiator.js';
import { appendRecord } from '../audit/recorder.js';
import type { Clock } from '../clock.js';
import type { NewOffer } from '../db/schema.js';
import type { Outbox } from '../events/outbox.js';
import { ids } from '../ids.js';
import { contentChanged, contentFromCsv, type OfferContent } from './content.js';
import { offerEvents, publishedAt } from './events.js';
import { CSV_FIELDS, isRequiredInput } from './fields.js';
import { OfferStore } from './store.js';

export const IMPORT_BATCH_SIZE = 500;
/** The offer's input fields in CSV order, then the import's own row key. */
const COLUMNS: readonly string[] = [...CSV_FIELDS, 'key'];
const REQUIRED: readonly string[] = CSV_FIELDS.filter(isRequiredInput);

export interface RowError {
  line: number;
  reason: string;
}

export interface OfferImportRow {
  line: number;
  key: string;
  content: OfferContent;
}

export interface ImportSummary {
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
}

export type Progress = (done: number, total: number) => void;

/** Parses and validates the whole file; `errors` lists every bad row with its line number. */
export function parseOffersCsv(text: string): { rows: OfferImportRow[]; errors: RowError[] } {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, {
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      bom: true,
      skip_empty_lines: true,
      trim: true,
      info: true,
    }) as typeof records;
  } catch (error) {
    const line =
      typeof error === 'object' && error !== null && 'lines' in error && typeof error.lines === 'number'
        ? error.lines
        : 1;
    return {
      rows: [],
      errors: [
        {
          line,
          reason: `not valid CSV: ${error instanceof Error ? error.message.replace(/^Invalid Record Length: |^Invalid Opening Quote: /, '') : String(error)}`,
        },
      ],
    };
  }
  const header = records[0] === undefined ? [] : Object.keys(records[0].record);
  const unknown = header.filter((column) => !(COLUMNS as readonly string[]).includes(column));
  const missing = REQUIRED.filter((column) => !header.includes(column));
  if (records.length === 0)
    return {
      rows: [],
      errors: [{ line: 1, reason: 'the file has no data rows (a header row, then one offer per line)' }],
    };
  if (unknown.length > 0 || missing.length > 0) {
    const parts = [
      ...(missing.length > 0 ? [`missing column(s) ${missing.join(', ')}`] : []),
      ...(unknown.length > 0 ? [`unknown column(s) ${unknown.join(', ')}`] : []),
    ];
    return { rows: [], errors: [{ line: 1, reason: `${parts.join('; ')}; expected ${COLUMNS.join(', ')}` }] };
  }

  const rows: OfferImportRow[] = [];
  const errors: RowError[] = [];
  const seenKeys = new Map<string, number>();
  const perEan = new Map<string, number>();
  for (const { record, info } of records) {
    const line = info.lines;
    const parsed = contentFromCsv(record);
    const reasons = 'reasons' in parsed ? parsed.reasons : [];
    const ean = record.ean ?? '';
    const occurrence = (perEan.get(ean) ?? 0) + 1;
    perEan.set(ean, occurrence);
    const key = record.key !== undefined && record.key !== '' ? record.key : `${ean}#${occurrence}`;
    if (key.length > 200) reasons.push('key is longer than 200 characters');
    const earlier = seenKeys.get(key);
    if (earlier !== undefined) reasons.push(`key ${JSON.stringify(key)} is already used on line ${earlier}`);
    seenKeys.set(key, line);
    if ('content' in parsed && reasons.length === 0) rows.push({ line, key, content: parsed.content });
    else errors.push({ line, reason: reasons.join('; ') });
  }
  return { rows, errors };
}

/** Writes validated rows in batches of IMPORT_BATCH_SIZE, each in one outbox transaction with its events. */
export class OfferImporter {
  constructor(
    private readonly outbox: Outbox,
    private readonly clock: Clock,
  ) {}

  /** Imports in batches, each recorded in its own transaction as `offers.imported` of `file` by `by`. */
  async import(
    rows: readonly OfferImportRow[],
    by: { initiator: Initiator; file: string },
    onProgress: Progress = () => undefined,
    batchSize = IMPORT_BATCH_SIZE,
  ): Promise<ImportSummary> {
    const summary: ImportSummary = { rows: rows.length, created: 0, updated: 0, unchanged: 0 };
    for (let start = 0; start < rows.length; start += batchSize) {
      const batch = rows.slice(start, start + batchSize);
      const counts = await this.outbox.transaction(async (trx, emit) => {
        const store = new OfferStore(trx);
        const existing = new Map(
          (await store.findByImportKeys(batch.map((row) => row.key))).map((row) => [row.import_key, row]),
        );
        const now = this.clock.now();
        const fresh: NewOffer[] = [];
        const freshKeys: string[] = [];
        let updated = 0;
        let unchanged = 0;
        for (const row of batch) {
          const found = existing.get(row.key);
          if (found === undefined) {
            const offer = {
              ...row.content,
              identifier: ids.resourceIdentifier(),
              published_at: publishedAt(undefined, row.content.status, now),
              created_at: now,
              updated_at: now,
            };
            fresh.push(offer);
            freshKeys.push(row.key);
            for (const event of offerEvents(undefined, offer)) emit(event);
          } else if (contentChanged(found, row.content)) {
            const changes = { ...row.content, published_at: publishedAt(found, row.content.status, now) };
            await store.update(found.id, { ...changes, updated_at: now });
            for (const event of offerEvents(found, { ...found, ...changes })) emit(event);
            updated++;
          } else unchanged++;
        }
        await store.insertImported(fresh, freshKeys);
        if (fresh.length + updated > 0)
          await appendRecord(trx, now, by.initiator, 'offers.imported', by.file, {
            rows: { before: null, after: `${start + 1}-${start + batch.length} of ${rows.length}` },
            created: { before: null, after: fresh.length },
            updated: { before: null, after: updated },
          });
        return { created: fresh.length, updated, unchanged };
      });
      summary.created += counts.created;
      summary.updated += counts.updated;
      summary.unchanged += counts.unchanged;
      onProgress(Math.min(start + batchSize, rows.length), rows.length);
    }
    return summary;
  }
}
