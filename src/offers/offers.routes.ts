/** Public offers API: published offers by EAN, and one offer by id. Both need the offers:read scope. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { documentedAs } from '../http/documented.js';
import { EAN_LENGTHS, EAN_LIST_PATTERN, MAX_EANS_PER_QUERY } from '../vocabulary/ean.js';
import type { PublishedOffers } from './fragment.js';
import { OfferIdOrIdentifierParams, PublicOfferSchema } from './schemas.js';
import type { OfferService } from './service.js';

/**
 * Sends JSON text that is already serialised. The type provider only knows the schema's object
 * shape, so the reply is seen as a plain FastifyReply here; the schema still documents the body.
 */
function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

/** The read model's tag goes with it: the ETag hook (src/http/etag.ts) uses it instead of hashing the body. */
function sendAnswer(reply: FastifyReply, { json, etag }: PublishedOffers): FastifyReply {
  void reply.header('etag', etag);
  return sendJson(reply, json);
}

export interface OfferRoutesOptions {
  offers: OfferService;
}

export const offerRoutes: FastifyPluginAsyncTypebox<OfferRoutesOptions> = async (app, { offers }) => {
  const tags = ['offers'];
  const config = { auth: { scope: 'offers:read' }, etag: true } as const;

  app.get(
    '/api/v1/offers',
    {
      config: { ...config, problems: ['invalid-ean'] },
      schema: {
        operationId: 'listOffers',
        tags,
        summary: 'Published offers for one or more EAN codes',
        description:
          `\`eans\` is a comma-separated list (a URL-encoded comma, %2C, works too) of up to ${MAX_EANS_PER_QUERY} distinct ` +
          'EAN-8, EAN-13 (ISBN-13) or GTIN-14 codes. Blanks around codes are ignored and duplicates collapse. ' +
          'The answer is a bare array ordered by EAN, then price, then id; EANs without offers simply contribute nothing. ' +
          'Any invalid code makes the whole request a 400 invalid-ean problem that lists each bad code. Other query parameters are ignored.',
        querystring: Type.Object({
          // parseEanList answers a bad list itself (400 invalid-ean naming each code); the document states the shape.
          eans: documentedAs(
            Type.String({
              description: 'Comma-separated EAN codes, e.g. 9789001891442,9780194837125',
              examples: ['9789001891442,9780194837125'],
            }),
            { minLength: Math.min(...EAN_LENGTHS), pattern: EAN_LIST_PATTERN },
          ),
        }),
        response: { 200: Type.Array(PublicOfferSchema) },
      },
    },
    // The read model hands over finished JSON: sending it as a string skips the serialiser. Not an
    // async handler: a remembered answer is sent at once, without a promise per request.
    (request, reply) => {
      const answer = offers.findPublishedWithTag(request.query.eans);
      if (answer instanceof Promise) {
        // Not returned to Fastify: a handler's promise resolving to undefined while an async onSend
        // hook (compression) is still at work makes Fastify send again, with an empty body.
        void answer.then(
          (found) => sendAnswer(reply, found),
          (error: Error) => (reply as FastifyReply).send(error),
        );
        return undefined;
      }
      sendAnswer(reply, answer);
      return undefined;
    },
  );

  app.get(
    '/api/v1/offers/:id',
    {
      config,
      schema: {
        operationId: 'getOffer',
        tags,
        summary: 'One published offer',
        description:
          'By id or by identifier (the one offer events carry). Unknown, unpublished and malformed ids all answer ' +
          '404 not-found, so ids cannot be probed for drafts.',
        params: OfferIdOrIdentifierParams,
        response: { 200: PublicOfferSchema },
      },
    },
    (request) => offers.getPublished(request.params.id),
  );
};
