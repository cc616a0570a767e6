/**
 * TypeBox shapes of offers on the wire, built from the field tables (fields.ts); they validate,
 * serialize and document (OpenAPI) at once, and `Static<>` of them is the offer type.
 */
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { OfferRow } from '../db/schema.js';
import { documentedAs } from '../http/documented.js';
import {
  ADMIN_FIELDS,
  type AnswerField,
  ConditionSchema,
  type InputField,
  OFFER_INPUTS,
  type OfferInputs,
  PUBLIC_FIELDS,
  StatusSchema,
} from './fields.js';
import { OFFER_ID_PATTERN } from './model.js';

export { ConditionSchema, StatusSchema };

type Answers = Record<string, AnswerField>;
type SchemasOf<T extends Record<string, { schema: TSchema }>> = { [K in keyof T]: T[K]['schema'] };
type ColumnsOf<T extends Answers> = { [K in keyof T]: T[K]['columns'][number] }[keyof T];

function schemasOf<T extends Record<string, { schema: TSchema }>>(fields: T): SchemasOf<T> {
  const schemas: Record<string, TSchema> = {};
  for (const [name, field] of Object.entries(fields)) schemas[name] = field.schema;
  return schemas as SchemasOf<T>;
}

export const PublicOfferSchema = Type.Object(schemasOf(PUBLIC_FIELDS), { $id: 'Offer', additionalProperties: false });

export const AdminOfferSchema = Type.Object(
  { ...schemasOf(PUBLIC_FIELDS), ...schemasOf(ADMIN_FIELDS) },
  { $id: 'AdminOffer', additionalProperties: false },
);

export type PublicOffer = Static<typeof PublicOfferSchema>;
export type AdminOffer = Static<typeof AdminOfferSchema>;

type CreateSchemas = { [K in keyof OfferInputs]: OfferInputs[K]['create'] };
type UpdateSchemas = {
  [K in keyof OfferInputs as OfferInputs[K]['update'] extends TSchema ? K : never]: Exclude<
    OfferInputs[K]['update'],
    undefined
  >;
};

function createSchemas(): CreateSchemas {
  const schemas: Record<string, TSchema> = {};
  for (const [name, field] of Object.entries(OFFER_INPUTS) as [string, InputField][]) schemas[name] = field.create;
  return schemas as CreateSchemas;
}

function updateSchemas(): UpdateSchemas {
  const schemas: Record<string, TSchema> = {};
  for (const [name, field] of Object.entries(OFFER_INPUTS) as [string, InputField][])
    if (field.update !== undefined) schemas[name] = field.update;
  return schemas as UpdateSchemas;
}

export const CreateOfferBody: TObject<CreateSchemas> = Type.Object(createSchemas(), { additionalProperties: false });

export const UpdateOfferBody: TObject<UpdateSchemas> = Type.Object(updateSchemas(), {
  additionalProperties: false,
  description: 'At least one field',
});

export type CreateOfferInput = Static<typeof CreateOfferBody>;
export type UpdateOfferInput = Static<typeof UpdateOfferBody>;

// Anything else answers 404 like an unknown id (parseOfferId); the document states the shape.
export const OfferIdParams = Type.Object({
  id: documentedAs(Type.String({ description: 'The offer id, a positive integer', examples: ['1042'] }), {
    pattern: OFFER_ID_PATTERN,
    maxLength: 10,
  }),
});

/** GET of one offer also takes the public identifier (the one the offer events carry). */
export const OfferIdOrIdentifierParams = Type.Object({
  id: documentedAs(
    Type.String({
      description: 'The offer id (a positive integer) or its identifier (32 lower-case hex, as in offer events)',
      examples: ['1042', '5f0c3c1e9a2b4d6f8e1a3b5c7d9e0f12'],
    }),
    { pattern: `^(?:${OFFER_ID_PATTERN.slice(1, -1)}|[0-9a-f]{32})$`, maxLength: 32 },
  ),
});

/** The columns the public shape needs (the public query reads only these). */
export type PublicOfferRow = Pick<OfferRow, ColumnsOf<typeof PUBLIC_FIELDS>>;

function columnsOf<T extends Answers>(fields: T): ColumnsOf<T>[] {
  return [...new Set(Object.values(fields).flatMap((field) => field.columns))] as ColumnsOf<T>[];
}

export const PUBLIC_OFFER_COLUMNS: readonly ColumnsOf<typeof PUBLIC_FIELDS>[] = columnsOf(PUBLIC_FIELDS);

function readInto(target: Record<string, unknown>, fields: Answers, row: OfferRow, serviceFeeCents: number): void {
  for (const [name, field] of Object.entries(fields)) target[name] = field.read(row, serviceFeeCents);
}

export function publicOffer(row: PublicOfferRow, serviceFeeCents: number): PublicOffer {
  const offer: Record<string, unknown> = {};
  // Each field reads only the columns it lists, which PublicOfferRow holds (the type above says so).
  readInto(offer, PUBLIC_FIELDS, row as OfferRow, serviceFeeCents);
  return offer as PublicOffer;
}

export function adminOffer(row: OfferRow, serviceFeeCents: number): AdminOffer {
  const offer: Record<string, unknown> = {};
  readInto(offer, PUBLIC_FIELDS, row, serviceFeeCents);
  readInto(offer, ADMIN_FIELDS, row, serviceFeeCents);
  return offer as AdminOffer;
}
