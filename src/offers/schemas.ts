/** TypeBox shapes of offers on the wire; they validate, serialize and document (OpenAPI) at once. */
import { Type } from '@sinclair/typebox';
import { MAX_PRICE_EUROS, OFFER_CONDITIONS, OFFER_STATUSES } from './model.js';

export const ConditionSchema = Type.Union(
  OFFER_CONDITIONS.map((condition) => Type.Literal(condition)),
  { description: 'excellent, good or acceptable' },
);
export const StatusSchema = Type.Union(
  OFFER_STATUSES.map((status) => Type.Literal(status)),
  { description: 'Only published offers are visible on the public API' },
);

const publicFields = {
  id: Type.Integer({ examples: [1042] }),
  ean: Type.String({ description: 'EAN-13 (ISBN-13), EAN-8 or GTIN-14', examples: ['9789001891442'] }),
  price: Type.Number({
    description: 'What the buyer pays in euros: the seller price plus the service fee',
    examples: [14.49],
  }),
  serviceFee: Type.Number({ description: 'Service fee in euros, included in price', examples: [1.99] }),
  currency: Type.Literal('EUR'),
  condition: ConditionSchema,
  remarks: Type.Union([Type.String(), Type.Null()]),
};

export const PublicOfferSchema = Type.Object(publicFields, { $id: 'Offer', additionalProperties: false });

export const AdminOfferSchema = Type.Object(
  {
    ...publicFields,
    status: StatusSchema,
    sellerPrice: Type.Number({ description: "The seller's price in euros, without the service fee", examples: [12.5] }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'AdminOffer', additionalProperties: false },
);

const Price = Type.Number({
  exclusiveMinimum: 0,
  maximum: MAX_PRICE_EUROS,
  description: "The seller's price in euros, at most 2 decimals; the public price adds the service fee",
  examples: [12.5],
});
const Remarks = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], {
  description: 'Free text for the buyer, e.g. "some highlighting"',
});

export const CreateOfferBody = Type.Object(
  {
    ean: Type.String({ maxLength: 32, description: 'EAN-13 (ISBN-13), EAN-8 or GTIN-14 with a valid check digit' }),
    price: Price,
    condition: ConditionSchema,
    remarks: Type.Optional(Remarks),
    status: Type.Optional(
      Type.Union(
        OFFER_STATUSES.map((status) => Type.Literal(status)),
        { description: 'Defaults to published' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const UpdateOfferBody = Type.Object(
  {
    price: Type.Optional(Price),
    condition: Type.Optional(ConditionSchema),
    remarks: Type.Optional(Remarks),
    status: Type.Optional(StatusSchema),
  },
  { additionalProperties: false, description: 'At least one field' },
);

export const OfferIdParams = Type.Object({
  id: Type.String({ description: 'The offer id, a positive integer', examples: ['1042'] }),
});
