/** Admin: the operator's offers, in every status, with the seller's price beside the public one. */

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { initiatorOf } from '../audit/initiator.js';
import { documentedAs, feeds } from '../http/documented.js';
import { EAN_PATTERN } from '../vocabulary/ean.js';
import {
  AdminOfferSchema,
  CreateOfferBody,
  OfferIdOrIdentifierParams,
  OfferIdParams,
  StatusSchema,
  UpdateOfferBody,
} from './schemas.js';
import type { OfferService } from './service.js';

const ListQuery = Type.Object({
  // A bad code is the service's 400 invalid-ean naming it; the document states the shape.
  ean: Type.Optional(
    documentedAs(Type.String({ maxLength: 32, description: 'Only offers for this EAN' }), { pattern: EAN_PATTERN }),
  ),
  status: Type.Optional(StatusSchema),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  starting_after: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'The last id of the previous page' }),
  ),
});

export interface AdminOfferRoutesOptions {
  offers: OfferService;
}

export const adminOfferRoutes: FastifyPluginAsyncTypebox<AdminOfferRoutesOptions> = async (app, { offers }) => {
  const tags = ['admin: offers'];

  app.post(
    '/offers',
    {
      links: feeds([201], { parameter: 'id', field: 'id' }, [
        'adminGetOffer',
        'adminUpdateOffer',
        'adminDeleteOffer',
        'getOffer',
      ]),
      config: { auth: 'admin', role: 'admin', idempotent: true, audit: 'offer.created', problems: ['invalid-ean'] },
      schema: {
        operationId: 'adminCreateOffer',
        tags,
        summary: 'Create an offer (status defaults to published, so it is visible at once)',
        body: CreateOfferBody,
        response: { 201: AdminOfferSchema },
      },
    },
    async (request, reply) => {
      const offer = await offers.create(request.body, initiatorOf(request));
      void reply.code(201).header('location', `/api/admin/v1/offers/${offer.id}`);
      return offer;
    },
  );

  app.get(
    '/offers',
    {
      config: { auth: 'admin', role: 'viewer', problems: ['invalid-ean'] },
      schema: {
        operationId: 'adminListOffers',
        tags,
        summary: 'List offers in every status, oldest first, with cursor paging',
        querystring: ListQuery,
        response: { 200: Type.Object({ has_more: Type.Boolean(), data: Type.Array(AdminOfferSchema) }) },
      },
    },
    (request) =>
      offers.list({
        ean: request.query.ean,
        status: request.query.status,
        limit: request.query.limit,
        startingAfter: request.query.starting_after,
      }),
  );

  app.get(
    '/offers/:id',
    {
      config: { auth: 'admin', role: 'viewer' },
      schema: {
        operationId: 'adminGetOffer',
        tags,
        summary: 'One offer in any status, by id or identifier',
        params: OfferIdOrIdentifierParams,
        response: { 200: AdminOfferSchema },
      },
    },
    (request) => offers.get(request.params.id),
  );

  app.patch(
    '/offers/:id',
    {
      config: { auth: 'admin', role: 'admin', idempotent: true, audit: 'offer.updated' },
      schema: {
        operationId: 'adminUpdateOffer',
        tags,
        summary: 'Change the price, condition, remarks or status of an offer',
        params: OfferIdParams,
        body: UpdateOfferBody,
        response: { 200: AdminOfferSchema },
      },
    },
    (request) => offers.update(request.params.id, request.body, initiatorOf(request)),
  );

  app.delete(
    '/offers/:id',
    {
      config: { auth: 'admin', role: 'admin', idempotent: true, audit: 'offer.deleted' },
      schema: {
        operationId: 'adminDeleteOffer',
        tags,
        summary: 'Delete an offer (204)',
        params: OfferIdParams,
      },
    },
    async (request, reply) => {
      await offers.remove(request.params.id, initiatorOf(request));
      return reply.code(204).send();
    },
  );
};
