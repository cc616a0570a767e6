/**
 * TypeBox schemas of the LML: request validation and response serialisation (which also fixes the
 * key order), and the OpenAPI document. Shared by the admin routes and the LML read routes.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { documentedAs } from '../http/documented.js';
import { EAN_PATTERN } from '../vocabulary/ean.js';
import { DEFAULT_LML_PAGE, MAX_LML_PAGE } from '../vocabulary/paging.js';
import { MAX_ITEMS, MAX_TAGS, SCHOOL_TYPES } from './model.js';
import { LIST_STATUS_INPUTS, LIST_STATUSES } from './status.js';

const NOT_BLANK = '\\S';

/**
 * `type: [T, "null"]` rather than anyOf: with coerceTypes the validator would otherwise turn a null
 * into "" or 0 in the first branch before trying the second.
 */
function nullable<T extends TSchema & { type: string }>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
}

const stringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description === undefined ? {} : { description }) });

const Identifier = Type.String({
  pattern: '^[0-9a-f]{32}$',
  description: '32 lower-case hexadecimal characters',
  examples: ['0f3c2a9be1d84c6f9a0b7c1d2e3f4a5b'],
});
const Time = Type.String({ format: 'date-time' });

export const SchoolSchema = Type.Object({
  identifier: Identifier,
  name: Type.String(),
  type: Type.String({ description: SCHOOL_TYPES.join(', ') }),
  location: nullable(Type.String()),
  brin: nullable(Type.String()),
  createdAt: Time,
  updatedAt: Time,
});

export const ListItemSchema = Type.Object({
  ean: Type.String(),
  title: Type.String(),
  author: nullable(Type.String()),
  publisher: nullable(Type.String()),
  mandatory: Type.Boolean(),
  remarks: nullable(Type.String()),
});

export type SchoolView = Static<typeof SchoolSchema>;
export type ListItem = Static<typeof ListItemSchema>;

const IMPORTED =
  'True when the list came from a bulk import (`shelfmark lists import`, or a client that sets it when creating the list ' +
  'from its own records) rather than being entered by hand. Set when the list is created and never changed.';

export const ListSchema = Type.Object({
  identifier: Identifier,
  slug: Type.String({ description: 'Short code for deep links and QR codes, e.g. BL4K7Q2M' }),
  name: Type.String(),
  comment: nullable(Type.String()),
  school: Type.Object({ identifier: Identifier, name: Type.String() }),
  schoolYear: nullable(Type.Integer({ description: 'Start year of the school year' })),
  duoCode: nullable(Type.String()),
  breadcrumb: Type.Array(Type.String(), { description: 'School name, the tags, the list name' }),
  status: Type.String({ description: LIST_STATUSES.join(', ') }),
  imported: Type.Boolean({ description: IMPORTED }),
  items: Type.Array(ListItemSchema),
  createdAt: Time,
  updatedAt: Time,
});

export type ListView = Static<typeof ListSchema>;

export const StructureNodeSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  model: stringEnum(['SCHOOL', 'TAG', 'LIST'] as const),
  resource: Type.Union([
    Type.Object({ type: Type.String() }),
    Type.Object({ slug: Type.String(), status: Type.String() }),
    Type.Null(),
  ]),
});

export const pageOf = <T extends TSchema>(item: T) => Type.Object({ has_more: Type.Boolean(), data: Type.Array(item) });

export const LmlPageQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: MAX_LML_PAGE, default: DEFAULT_LML_PAGE }),
    starting_after: Type.Optional(
      Type.String({ maxLength: 64, description: 'identifier of the last item of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

export const ListQuerySchema = Type.Object(
  {
    ...LmlPageQuerySchema.properties,
    school: Type.Optional(Identifier),
    status: Type.Optional(
      stringEnum(LIST_STATUS_INPUTS, 'archived lists are listed only when asked for explicitly; concept = created'),
    ),
  },
  { additionalProperties: false },
);

export const IdentifierParams = Type.Object({ identifier: Type.String({ maxLength: 64 }) });

// ---- admin input ----

/** Required text: the service trims it and refuses a blank one (400), so the document says "not blank". */
const Text = (maxLength: number, example: string) =>
  documentedAs(Type.String({ minLength: 1, maxLength, examples: [example] }), { pattern: NOT_BLANK });

export const SchoolCreateBody = Type.Object(
  {
    name: Text(200, 'Noorderlicht College'),
    type: stringEnum(SCHOOL_TYPES),
    location: Type.Optional(nullable(Type.String({ maxLength: 200 }))),
    brin: Type.Optional(nullable(Type.String({ pattern: '^[0-9]{2}[A-Za-z0-9]{2}$', description: 'e.g. 27PZ' }))),
  },
  { additionalProperties: false },
);

export const SchoolPatchBody = Type.Partial(SchoolCreateBody, { additionalProperties: false, minProperties: 1 });

const ItemInput = Type.Object(
  {
    // A bad code is the service's 400 invalid-ean naming it; the document states the shape.
    ean: documentedAs(
      Type.String({
        minLength: 1,
        maxLength: 32,
        description: 'EAN-13 (ISBN-13), EAN-8 or GTIN-14 with a valid check digit',
        examples: ['9789001891442'],
      }),
      { pattern: EAN_PATTERN },
    ),
    title: Text(500, 'Getal & Ruimte 1 vwo'),
    author: Type.Optional(nullable(Type.String({ maxLength: 300 }))),
    publisher: Type.Optional(nullable(Type.String({ maxLength: 300 }))),
    mandatory: Type.Optional(Type.Boolean({ default: true })),
    remarks: Type.Optional(nullable(Type.String({ maxLength: 1000 }))),
  },
  { additionalProperties: false },
);

const listContent = {
  name: Text(200, 'Boekenlijst 1 vwo'),
  comment: Type.Optional(nullable(Type.String({ maxLength: 2000 }))),
  schoolYear: Type.Optional(
    nullable(Type.Integer({ minimum: 1900, maximum: 2200, description: 'start year, e.g. 2026 for 2026-2027' })),
  ),
  duoCode: Type.Optional(nullable(Type.String({ maxLength: 32 }))),
  tags: Type.Optional(
    Type.Array(Text(100, 'vwo'), {
      maxItems: MAX_TAGS,
      description: 'levels between school and list, e.g. location, school year, academy',
    }),
  ),
  items: Type.Optional(Type.Array(ItemInput, { maxItems: MAX_ITEMS })),
};

export const ListCreateBody = Type.Object(
  {
    school: Type.String({ maxLength: 64, description: 'identifier of an existing school' }),
    ...listContent,
    imported: Type.Optional(Type.Boolean({ description: IMPORTED })),
  },
  { additionalProperties: false },
);

export const ListPatchBody = Type.Partial(Type.Object(listContent), { additionalProperties: false, minProperties: 1 });

export const StatusBody = Type.Object(
  { status: stringEnum(LIST_STATUS_INPUTS, 'concept is accepted as created') },
  { additionalProperties: false },
);
