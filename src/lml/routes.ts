/**
 * The LML read API (scope lml:read): schools, lists and the structure tree, so a webhook receiver can
 * fetch what an event's identifier names and apps can walk the tree.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireScope } from '../auth/guard.js';
import type { Services } from '../services.js';
import { lmlReadRoutes } from './read-routes.js';
import { StructureNodeSchema } from './schemas.js';

export const lmlRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['lml'];
    const security = [{ bearer: [] }];
    const preHandler = requireScope(services.tokens, 'lml:read', services.rateLimit);

    await app.register(lmlReadRoutes(services, { schoolTags: tags, listTags: tags, security, preHandler }));
    app.get(
      '/structure',
      {
        preHandler,
        schema: {
          tags,
          security,
          summary: 'One level of the tree: schools without parent, then tags and lists below a school or tag node',
          querystring: Type.Object(
            { parent: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
            { additionalProperties: false },
          ),
          response: { 200: Type.Array(StructureNodeSchema) },
        },
      },
      (request) => services.structure.children(request.query.parent),
    );
  };
