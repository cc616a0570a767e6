/**
 * The LML read API (scope lml:read): schools, lists and the structure tree, so a webhook receiver can
 * fetch what an event's identifier names and apps can walk the tree.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ListService } from './list-service.js';
import { lmlReadRoutes } from './read.routes.js';
import { StructureNodeSchema } from './schemas.js';
import type { SchoolService } from './school-service.js';
import type { StructureService } from './structure.js';

export interface LmlRoutesOptions {
  schools: SchoolService;
  lists: ListService;
  structure: StructureService;
}

export const lmlRoutes: FastifyPluginAsyncTypebox<LmlRoutesOptions> = async (app, { schools, lists, structure }) => {
  const tags = ['lml'];
  const auth = { scope: 'lml:read' } as const;

  await app.register(lmlReadRoutes, {
    schools,
    lists,
    schoolTags: tags,
    listTags: tags,
    auth,
    operationIds: { listSchools: 'listSchools', getSchool: 'getSchool', listLists: 'listLists', getList: 'getList' },
  });
  app.get(
    '/structure',
    {
      // A parent that is no node of the tree answers 404.
      config: { auth, etag: true, problems: ['not-found'] },
      schema: {
        operationId: 'getStructure',
        tags,
        summary: 'One level of the tree: schools without parent, then tags and lists below a school or tag node',
        querystring: Type.Object(
          { parent: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(StructureNodeSchema) },
      },
    },
    (request) => structure.children(request.query.parent),
  );
};
