/**
 * The LML read API (scope lml:read): schools, lists and the structure tree, so a webhook receiver can
 * fetch what an event's identifier names and apps can walk the tree.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireScope } from '../auth/guard.js';
import type { Services } from '../services.js';
import { IdentifierParams, ListQuerySchema, ListSchema, PageQuerySchema, SchoolSchema, StructureNodeSchema, pageOf } from './schemas.js';

export const lmlRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['lml'];
    const security = [{ bearer: [] }];
    const preHandler = requireScope(services.tokens, 'lml:read');

    app.get(
      '/schools',
      { preHandler, schema: { tags, security, summary: 'Schools, oldest first, cursor-paged', querystring: PageQuerySchema, response: { 200: pageOf(SchoolSchema) } } },
      (request) => services.schools.page({ limit: request.query.limit, startingAfter: request.query.starting_after }),
    );
    app.get(
      '/schools/:identifier',
      { preHandler, schema: { tags, security, summary: 'One school', params: IdentifierParams, response: { 200: SchoolSchema } } },
      (request) => services.schools.get(request.params.identifier),
    );
    app.get(
      '/lists',
      {
        preHandler,
        schema: {
          tags,
          security,
          summary: 'Lists, oldest first, cursor-paged; archived lists only with status=archived',
          querystring: ListQuerySchema,
          response: { 200: pageOf(ListSchema) },
        },
      },
      (request) =>
        services.lists.page({ limit: request.query.limit, startingAfter: request.query.starting_after, school: request.query.school, status: request.query.status }),
    );
    app.get(
      '/lists/:identifier',
      {
        preHandler,
        schema: {
          tags,
          security,
          summary: 'One list by identifier or slug (archived lists too, so an event can always be followed up)',
          params: IdentifierParams,
          response: { 200: ListSchema },
        },
      },
      (request) => services.lists.get(request.params.identifier),
    );
    app.get(
      '/structure',
      {
        preHandler,
        schema: {
          tags,
          security,
          summary: 'One level of the tree: schools without parent, then tags and lists below a school or tag node',
          querystring: Type.Object({ parent: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false }),
          response: { 200: Type.Array(StructureNodeSchema) },
        },
      },
      (request) => services.structure.children(request.query.parent),
    );
  };
