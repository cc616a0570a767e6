/** Admin: the operator's offers, in every status, with the seller's price beside the public one. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AdminOfferSchema, CreateOfferBody, OfferIdParams, StatusSchema, UpdateOfferBody } from '../offers/schemas.js';
import type { Services } from '../services.js';

const ListQuery = Type.Object({
  ean: Type.Optional(Type.String({ maxLength: 32, description: 'Only offers for this EAN' })),
  status: Type.Optional(StatusSchema),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  starting_after: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'The last id of the previous page' }),
  ),
});

export const adminOfferRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['admin: offers'];
    const security = [{ admin: [] }];

    app.post(
      '/offers',
      {
        schema: {
          tags,
          security,
          summary: 'Create an offer (status defaults to published, so it is visible at once)',
          body: CreateOfferBody,
          response: { 201: AdminOfferSchema },
        },
      },
      async (request, reply) => {
        const offer = await services.offers.create(request.body);
        void reply.code(201).header('location', `/api/admin/v1/offers/${offer.id}`);
        return offer;
      },
    );

    app.get(
      '/offers',
      {
        schema: {
          tags,
          security,
          summary: 'List offers in every status, oldest first, with cursor paging',
          querystring: ListQuery,
          response: { 200: Type.Object({ has_more: Type.Boolean(), data: Type.Array(AdminOfferSchema) }) },
        },
      },
      (request) =>
        services.offers.list({
          ean: request.query.ean,
          status: request.query.status,
          limit: request.query.limit,
          startingAfter: request.query.starting_after,
        }),
    );

    app.get(
      '/offers/:id',
      {
        schema: {
          tags,
          security,
          summary: 'One offer in any status',
          params: OfferIdParams,
          response: { 200: AdminOfferSchema },
        },
      },
      (request) => services.offers.get(request.params.id),
    );

    app.patch(
      '/offers/:id',
      {
        schema: {
          tags,
          security,
          summary: 'Change the price, condition, remarks or status of an offer',
          params: OfferIdParams,
          body: UpdateOfferBody,
          response: { 200: AdminOfferSchema },
        },
      },
      (request) => services.offers.update(request.params.id, request.body),
    );

    app.delete(
      '/offers/:id',
      { schema: { tags, security, summary: 'Delete an offer (204)', params: OfferIdParams } },
      async (request, reply) => {
        await services.offers.remove(request.params.id);
        return reply.code(204).send();
      },
    );
  };
