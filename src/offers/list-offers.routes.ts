/** A whole book list priced in one call: GET /api/v1/lists/:identifier/offers (scope offers:read). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { OFFER_CONDITIONS } from './model.js';
import { DEFAULT_OFFERS_PER_ITEM, MAX_OFFERS_PER_ITEM, type PricedListService } from './priced-list.js';
import { PublicOfferSchema } from './schemas.js';

export interface ListOfferRoutesOptions {
  pricedLists: PricedListService;
}

/** Sends JSON text as is: the type provider knows only the schema's object shape (see offers/offers.routes.ts). */
function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

const Euros = (description: string) => Type.Number({ description, examples: [83.41] });

export const PricedListSchema = Type.Object(
  {
    list: Type.Object({
      identifier: Type.String({ examples: ['0f3c8a9e4b2d4c6f8a1b3d5e7f9a0c2e'] }),
      name: Type.String({ examples: ['vwo 4'] }),
      status: Type.String({ description: 'created, validated or published (archived lists answer 404)' }),
    }),
    items: Type.Array(
      Type.Object({
        ean: Type.String({ examples: ['9789001891442'] }),
        title: Type.String(),
        mandatory: Type.Boolean(),
        offers: Type.Array(PublicOfferSchema, {
          description: 'Published offers for this EAN: cheapest first, then better condition, then id',
        }),
      }),
      { description: "The list's items in the list's order" },
    ),
    summary: Type.Object({
      items: Type.Integer(),
      itemsWithOffers: Type.Integer(),
      mandatoryItems: Type.Integer(),
      mandatoryItemsWithOffers: Type.Integer(),
      cheapestTotal: Euros('The cheapest offer of every item that has one, summed (exact, in euros)'),
      cheapestMandatoryTotal: Euros('The same over the mandatory items'),
      currency: Type.Literal('EUR'),
    }),
  },
  { $id: 'PricedList', additionalProperties: false },
);

const Query = Type.Object({
  condition: Type.Optional(
    Type.Union(
      OFFER_CONDITIONS.map((condition) => Type.Literal(condition)),
      { description: 'The worst condition accepted: acceptable < good < excellent' },
    ),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_OFFERS_PER_ITEM,
      default: DEFAULT_OFFERS_PER_ITEM,
      description: 'Offers per item',
    }),
  ),
});

export const listOfferRoutes: FastifyPluginAsyncTypebox<ListOfferRoutesOptions> = async (app, { pricedLists }) => {
  app.get(
    '/api/v1/lists/:identifier/offers',
    {
      config: { auth: { scope: 'offers:read' }, etag: true },
      schema: {
        operationId: 'listListOffers',
        tags: ['offers'],
        summary: 'A whole book list priced: each item with its cheapest published offers, and the totals',
        description:
          'For any list that GET /api/lml/v1/lists/{identifier} shows, except archived ones (404 not-found, like an ' +
          'unknown or malformed identifier). Items come in the list order; each has at most `limit` published offers ' +
          'of at least `condition`, cheapest first. `cheapestTotal` sums the cheapest offer of every item that has ' +
          'one, `cheapestMandatoryTotal` the same over the mandatory items; both are computed in cents, so exact.',
        params: Type.Object({
          identifier: Type.String({
            maxLength: 64,
            description: "The list's identifier (32 lower-case hex)",
            examples: ['0f3c8a9e4b2d4c6f8a1b3d5e7f9a0c2e'],
          }),
        }),
        querystring: Query,
        response: { 200: PricedListSchema },
      },
    },
    async (request, reply) => {
      const json = await pricedLists.price(request.params.identifier, request.query);
      // Already JSON (offers are slices of the read model's fragments): sent as is; the ETag hook hashes it.
      return sendJson(reply, json);
    },
  );
};
