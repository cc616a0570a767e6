/**
 * Reading an offers CSV row by row: the header is checked once, then each row is validated as it
 * arrives, so the importer writes while the file is still being read instead of after a pass over
 * all of it. One validator serves the stream (the CLI) and a text held in memory (parseOffersCsv).
 *
 * Columns (header row required, in whatever order): ean, price (seller price in euros, dot decimals),
 * condition, and optionally status (default published), remarks, key. Each row has a stable key: the
 * `key` column when given, else `<ean>#<n>` for the n-th row with that EAN in the file.
 */
import type { Readable } from 'node:stream';
import { parse as parseStream } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { contentFromCsv, type OfferContent } from './content.js';
import { CSV_FIELDS, isRequiredInput } from './fields.js';

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

/** One row of the file as read: valid, or why not. */
export type CheckedRow = { row: OfferImportRow } | { error: RowError };

const OPTIONS = {
  columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
  bom: true,
  skip_empty_lines: true,
  trim: true,
  info: true,
} as const;

interface Record {
  record: { [column: string]: string };
  info: { lines: number };
}

/** Why the header cannot be imported, or undefined when it can. */
function headerProblem(header: readonly string[]): RowError | undefined {
  const unknown = header.filter((column) => !COLUMNS.includes(column));
  const missing = REQUIRED.filter((column) => !header.includes(column));
  if (unknown.length === 0 && missing.length === 0) return undefined;
  const parts = [
    ...(missing.length > 0 ? [`missing column(s) ${missing.join(', ')}`] : []),
    ...(unknown.length > 0 ? [`unknown column(s) ${unknown.join(', ')}`] : []),
  ];
  return { line: 1, reason: `${parts.join('; ')}; expected ${COLUMNS.join(', ')}` };
}

const NO_ROWS: RowError = { line: 1, reason: 'the file has no data rows (a header row, then one offer per line)' };

function notCsv(error: unknown): RowError {
  const line =
    typeof error === 'object' && error !== null && 'lines' in error && typeof error.lines === 'number'
      ? error.lines
      : 1;
  const message =
    error instanceof Error
      ? error.message.replace(/^Invalid Record Length: |^Invalid Opening Quote: /, '')
      : String(error);
  return { line, reason: `not valid CSV: ${message}` };
}

/** Checks rows one at a time, remembering the keys seen so far (a key used twice is refused). */
class RowChecker {
  private readonly seenKeys = new Map<string, number>();
  private readonly perEan = new Map<string, number>();

  check({ record, info }: Record): CheckedRow {
    const line = info.lines;
    const parsed = contentFromCsv(record);
    const reasons = 'reasons' in parsed ? parsed.reasons : [];
    const ean = record.ean ?? '';
    const occurrence = (this.perEan.get(ean) ?? 0) + 1;
    this.perEan.set(ean, occurrence);
    const key = record.key !== undefined && record.key !== '' ? record.key : `${ean}#${occurrence}`;
    if (key.length > 200) reasons.push('key is longer than 200 characters');
    const earlier = this.seenKeys.get(key);
    if (earlier !== undefined) reasons.push(`key ${JSON.stringify(key)} is already used on line ${earlier}`);
    this.seenKeys.set(key, line);
    if ('content' in parsed && reasons.length === 0) return { row: { line, key, content: parsed.content } };
    return { error: { line, reason: reasons.join('; ') } };
  }
}

/**
 * The rows of a CSV stream, each checked as it is read. A bad header or a file that is not CSV
 * ends the rows with that one error.
 */
export async function* checkedRows(input: Readable): AsyncGenerator<CheckedRow> {
  const checker = new RowChecker();
  let first = true;
  try {
    for await (const record of input.pipe(parseStream(OPTIONS)) as AsyncIterable<Record>) {
      if (first) {
        first = false;
        const problem = headerProblem(Object.keys(record.record));
        if (problem !== undefined) {
          yield { error: problem };
          return;
        }
      }
      yield checker.check(record);
    }
  } catch (error) {
    yield { error: notCsv(error) };
    return;
  }
  if (first) yield { error: NO_ROWS };
}

/** Parses and validates a whole text; `errors` lists every bad row with its line number. */
export function parseOffersCsv(text: string): { rows: OfferImportRow[]; errors: RowError[] } {
  let records: Record[];
  try {
    records = parse(text, OPTIONS) as Record[];
  } catch (error) {
    return { rows: [], errors: [notCsv(error)] };
  }
  if (records.length === 0) return { rows: [], errors: [NO_ROWS] };
  const problem = headerProblem(Object.keys(records[0]?.record ?? {}));
  if (problem !== undefined) return { rows: [], errors: [problem] };
  const checker = new RowChecker();
  const rows: OfferImportRow[] = [];
  const errors: RowError[] = [];
  for (const record of records) {
    const checked = checker.check(record);
    if ('row' in checked) rows.push(checked.row);
    else errors.push(checked.error);
  }
  return { rows, errors };
}
