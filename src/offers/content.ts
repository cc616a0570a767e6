/**
 * An offer's content — the columns callers write — read from an admin API body or a CSV record by
 * the input field table (fields.ts), so the service and the importer handle every field alike.
 */
import type { OfferRow } from '../db/schema.js';
import { CSV_FIELDS, type InputField, type InputName, OFFER_INPUTS, type OfferInputs } from './fields.js';
import type { CreateOfferInput, UpdateOfferInput } from './schemas.js';

/** Column → stored value, one per input field. */
export type OfferContent = {
  [K in InputName as OfferInputs[K]['column']]: ReturnType<OfferInputs[K]['store']>;
};

type Column = keyof OfferContent;

const entries = Object.entries(OFFER_INPUTS) as [InputName, InputField][];

// The table is typed per field; these loops treat every field alike, so each value is passed as
// unknown to its own field's store(), which its body schema has already checked.
const store = (field: InputField, value: unknown): unknown => (field.store as (value: unknown) => unknown)(value);

/** The stored content of a new offer; fields left out get their defaults. Throws a Problem on a bad value. */
export function contentFromCreate(input: CreateOfferInput): OfferContent {
  const content: Record<string, unknown> = {};
  for (const [name, field] of entries) content[field.column] = store(field, input[name]);
  return content as OfferContent;
}

/** The columns a patch changes (only the fields it sends). Throws a Problem on a bad value. */
export function contentFromUpdate(patch: UpdateOfferInput): Partial<OfferContent> {
  const content: Record<string, unknown> = {};
  const values = patch as Partial<Record<InputName, unknown>>;
  for (const [name, field] of entries) {
    if (field.update !== undefined && values[name] !== undefined) content[field.column] = store(field, values[name]);
  }
  return content as Partial<OfferContent>;
}

/** The update body's field names, in body order (for "send at least one of …"). */
export const UPDATABLE_FIELDS: readonly InputName[] = entries
  .filter(([, field]) => field.update !== undefined)
  .map(([name]) => name);

/** A CSV record's content, or every reason it is refused, in column order. */
export function contentFromCsv(record: Record<string, string>): { content: OfferContent } | { reasons: string[] } {
  const content: Record<string, unknown> = {};
  const reasons: string[] = [];
  for (const name of CSV_FIELDS) {
    const field: InputField = OFFER_INPUTS[name];
    const parsed = field.csv(record[name]);
    if ('reason' in parsed) reasons.push(parsed.reason);
    else content[field.column] = parsed.value;
  }
  return reasons.length > 0 ? { reasons } : { content: content as OfferContent };
}

const COLUMNS = entries.map(([, field]) => field.column) as Column[];

/** Whether a stored offer's content differs from this content. */
export function contentChanged(row: OfferRow, content: OfferContent): boolean {
  return COLUMNS.some((column) => row[column] !== content[column]);
}
