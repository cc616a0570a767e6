/**
 * The offer's fields, each written once. An answer field names its wire schema, the columns it reads
 * and how; an input field names its column, its create/update schemas, how a value is checked and
 * stored, and how a CSV cell is parsed. The TypeBox schemas (schemas.ts), the public and admin types
 * (`Static<>`), the store's column list, the service's writes and the importer's columns all derive
 * from these tables: a new field is an entry here plus its migration, and the compiler points at the
 * rest (the table's column in db/schema.ts, the CSV column order below).
 */
import { KindGuard, type Static, type TSchema, Type } from '@sinclair/typebox';
import { isoTime } from '../clock.js';
import type { OfferRow } from '../db/schema.js';
import { documentedAs } from '../http/documented.js';
import { Problem } from '../problems/catalogue.js';
import { assertEan, EAN_PATTERN, validateEan } from '../vocabulary/ean.js';
import {
  cleanText,
  DEFAULT_OFFER_STATUS,
  euros,
  isCondition,
  isStatus,
  MAX_PRICE_EUROS,
  OFFER_CONDITIONS,
  OFFER_STATUSES,
  toCents,
} from './model.js';

export const ConditionSchema = Type.Union(
  OFFER_CONDITIONS.map((condition) => Type.Literal(condition)),
  { description: 'excellent, good or acceptable' },
);
export const StatusSchema = Type.Union(
  OFFER_STATUSES.map((status) => Type.Literal(status)),
  { description: 'Only published offers are visible on the public API' },
);

/** A field of an answer: its schema, the columns `read` uses, and how it is read (the fee in cents). */
export interface AnswerField<S extends TSchema = TSchema, C extends keyof OfferRow = keyof OfferRow> {
  schema: S;
  columns: readonly C[];
  read(row: Pick<OfferRow, C>, serviceFeeCents: number): Static<S>;
}

const answer = <S extends TSchema, C extends keyof OfferRow>(
  schema: S,
  columns: readonly C[],
  read: (row: Pick<OfferRow, C>, serviceFeeCents: number) => Static<S>,
): AnswerField<S, C> => ({ schema, columns, read });

/** The public offer, in wire order. */
export const PUBLIC_FIELDS = {
  id: answer(Type.Integer({ examples: [1042] }), ['id'], (row) => row.id),
  identifier: answer(
    Type.String({
      pattern: '^[0-9a-f]{32}$',
      description: 'Public and stable, 32 lower-case hex: the identifier of the offer events',
      examples: ['5f0c3c1e9a2b4d6f8e1a3b5c7d9e0f12'],
    }),
    ['identifier'],
    (row) => row.identifier,
  ),
  ean: answer(
    Type.String({ description: 'EAN-13 (ISBN-13), EAN-8 or GTIN-14', examples: ['9789001891442'] }),
    ['ean'],
    (row) => row.ean,
  ),
  price: answer(
    Type.Number({
      description: 'What the buyer pays in euros: the seller price plus the service fee',
      examples: [14.49],
    }),
    ['price_cents'],
    (row, fee) => euros(row.price_cents + fee),
  ),
  serviceFee: answer(
    Type.Number({ description: 'Service fee in euros, included in price', examples: [1.99] }),
    [],
    (_row, fee) => euros(fee),
  ),
  currency: answer(Type.Literal('EUR'), [], () => 'EUR' as const),
  // Rows are only written through the service, which checks these; fall back rather than leak a bad value.
  condition: answer(ConditionSchema, ['condition'], (row) =>
    isCondition(row.condition) ? row.condition : 'acceptable',
  ),
  remarks: answer(Type.Union([Type.String(), Type.Null()]), ['remarks'], (row) => row.remarks),
};

/** What the operator sees beyond the public offer, in wire order after it. */
export const ADMIN_FIELDS = {
  status: answer(StatusSchema, ['status'], (row) => (isStatus(row.status) ? row.status : 'withdrawn')),
  sellerPrice: answer(
    Type.Number({ description: "The seller's price in euros, without the service fee", examples: [12.5] }),
    ['price_cents'],
    (row) => euros(row.price_cents),
  ),
  createdAt: answer(Type.String({ format: 'date-time' }), ['created_at'], (row) => isoTime(row.created_at)),
  updatedAt: answer(Type.String({ format: 'date-time' }), ['updated_at'], (row) => isoTime(row.updated_at)),
};

/** A CSV cell's value, or why it is refused (the importer reports every reason of a row at once). */
export type Parsed<T> = { value: T } | { reason: string };

/** The columns a caller writes; id, identifier and the times belong to the database and the service. */
export type ContentColumn = Exclude<keyof OfferRow, 'id' | 'identifier' | 'published_at' | 'created_at' | 'updated_at'>;

/** A field a caller writes: through the admin API (create, and update unless `update` is undefined) and the CSV import. */
export interface InputField<S extends TSchema = TSchema, C extends ContentColumn = ContentColumn, V = OfferRow[C]> {
  column: C;
  /** The create body's property (Type.Optional when it may be left out). */
  create: S;
  /** The update body's property (always optional), or undefined when it cannot be changed. */
  update: TSchema | undefined;
  /** Checks a body value (throws a Problem) and gives the stored value; `undefined` when left out. */
  store(value: Static<S> | undefined): V;
  /** Parses a CSV cell (`undefined` when the file has no such column). */
  csv(cell: string | undefined): Parsed<V>;
}

const input = <S extends TSchema, C extends ContentColumn, V extends OfferRow[C]>(
  field: InputField<S, C, V>,
): InputField<S, C, V> => field;

// toCents refuses a third decimal itself; the document states it as a multiple of a cent.
const Price = documentedAs(
  Type.Number({
    exclusiveMinimum: 0,
    maximum: MAX_PRICE_EUROS,
    description:
      "The seller's price in euros, at most 2 decimals (a multiple of 0.01 in decimal: compare as decimals, not binary floats); the public price adds the service fee",
    examples: [12.5],
  }),
  { multipleOf: 0.01 },
);
const Remarks = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], {
  description: 'Free text for the buyer, e.g. "some highlighting"',
});
const CreateStatus = Type.Union(
  OFFER_STATUSES.map((status) => Type.Literal(status)),
  { description: 'Defaults to published' },
);

/** Why a word is not one of the allowed ones, quoting the cell as written. */
const notOneOf = (name: string, cell: string | undefined, allowed: readonly string[]): { reason: string } => ({
  reason: `${name} ${JSON.stringify(cell ?? '')} is not one of ${allowed.join(', ')}`,
});

/** The fields callers write, in body order. */
export const OFFER_INPUTS = {
  ean: input({
    column: 'ean',
    create: documentedAs(
      Type.String({
        maxLength: 32,
        description: 'EAN-13 (ISBN-13), EAN-8 or GTIN-14 with a valid check digit',
        examples: ['9789001891442'],
      }),
      { pattern: EAN_PATTERN },
    ),
    update: undefined,
    store: (value) => {
      const ean = (value ?? '').trim();
      assertEan(ean);
      return ean;
    },
    csv: (cell = '') => {
      const check = validateEan(cell);
      return check.valid ? { value: cell } : { reason: `ean ${JSON.stringify(cell)} ${check.reason}` };
    },
  }),
  price: input({
    column: 'price_cents',
    create: Price,
    update: Type.Optional(Price),
    store: (value) => toCents(value ?? 0),
    csv: (cell = '') => {
      if (!/^\d+(\.\d+)?$/.test(cell))
        return { reason: `price ${JSON.stringify(cell)} is not an amount in euros like 12.50` };
      try {
        return { value: toCents(Number(cell)) };
      } catch (error) {
        return {
          reason: error instanceof Problem && error.detail !== undefined ? error.detail : `price ${cell} is invalid`,
        };
      }
    },
  }),
  condition: input({
    column: 'condition',
    create: ConditionSchema,
    update: Type.Optional(ConditionSchema),
    store: (value) => value ?? 'acceptable',
    csv: (cell) => {
      const condition = (cell ?? '').toLowerCase();
      return isCondition(condition) ? { value: condition } : notOneOf('condition', cell, OFFER_CONDITIONS);
    },
  }),
  remarks: input({
    column: 'remarks',
    create: Type.Optional(Remarks),
    update: Type.Optional(Remarks),
    store: (value) => cleanText(value),
    csv: (cell = '') =>
      cell.trim().length > 1000 ? { reason: 'remarks are longer than 1000 characters' } : { value: cleanText(cell) },
  }),
  status: input({
    column: 'status',
    create: Type.Optional(CreateStatus),
    update: Type.Optional(StatusSchema),
    store: (value) => value ?? DEFAULT_OFFER_STATUS,
    csv: (cell) => {
      const status = (cell ?? '').toLowerCase() || DEFAULT_OFFER_STATUS;
      return isStatus(status) ? { value: status } : notOneOf('status', cell, OFFER_STATUSES);
    },
  }),
};

export type OfferInputs = typeof OFFER_INPUTS;
export type InputName = keyof OfferInputs;

/** The CSV's column order (the importer's "expected …" message); every input field has a place. */
const CSV_ORDER: Record<InputName, number> = { ean: 0, price: 1, condition: 2, status: 3, remarks: 4 };
export const CSV_FIELDS: readonly InputName[] = (Object.keys(CSV_ORDER) as InputName[]).sort(
  (a, b) => CSV_ORDER[a] - CSV_ORDER[b],
);

/** A CSV column is required exactly when the create body requires the field. */
export const isRequiredInput = (name: InputName): boolean => !KindGuard.IsOptional(OFFER_INPUTS[name].create);
