/**
 * The read side of schools and lists, registered twice with the same handlers: under the public LML
 * API (bearer token with lml:read) and under the admin API (admin token), which differ only in their
 * declared auth and their OpenAPI tags.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteAuth } from '../http/route-config.js';
import type { Role } from '../vocabulary/actor.js';
import type { ListService } from './list-service.js';
import { IdentifierParams, ListQuerySchema, ListSchema, LmlPageQuerySchema, pageOf, SchoolSchema } from './schemas.js';
import type { SchoolService } from './school-service.js';

export interface ReadAccess {
  schoolTags: string[];
  listTags: string[];
  /** Who may read under this registration. */
  auth: RouteAuth;
  /** Under the admin API: the operator role that may read (viewer). */
  role?: Role;
  /** The OpenAPI operationIds (the SDK's method names) under this registration. */
  operationIds: { listSchools: string; getSchool: string; listLists: string; getList: string };
}

export interface LmlReadRoutesOptions extends ReadAccess {
  schools: SchoolService;
  lists: ListService;
}

export const lmlReadRoutes: FastifyPluginAsyncTypebox<LmlReadRoutesOptions> = async (app, options) => {
  const { schools, lists, schoolTags, listTags, auth, role, operationIds } = options;
  const config = { auth, etag: true, ...(role === undefined ? {} : { role }) };

  app.get(
    '/schools',
    {
      config,
      schema: {
        operationId: operationIds.listSchools,
        tags: schoolTags,
        summary: 'Schools, oldest first, cursor-paged',
        querystring: LmlPageQuerySchema,
        response: { 200: pageOf(SchoolSchema) },
      },
    },
    (request) => schools.page({ limit: request.query.limit, startingAfter: request.query.starting_after }),
  );
  app.get(
    '/schools/:identifier',
    {
      config,
      schema: {
        operationId: operationIds.getSchool,
        tags: schoolTags,
        summary: 'One school',
        params: IdentifierParams,
        response: { 200: SchoolSchema },
      },
    },
    (request) => schools.get(request.params.identifier),
  );
  app.get(
    '/lists',
    {
      config,
      schema: {
        operationId: operationIds.listLists,
        tags: listTags,
        summary: 'Lists, oldest first, cursor-paged; archived lists only with status=archived',
        querystring: ListQuerySchema,
        response: { 200: pageOf(ListSchema) },
      },
    },
    (request) =>
      lists.page({
        limit: request.query.limit,
        startingAfter: request.query.starting_after,
        school: request.query.school,
        status: request.query.status,
      }),
  );
  app.get(
    '/lists/:identifier',
    {
      config,
      schema: {
        operationId: operationIds.getList,
        tags: listTags,
        summary: 'One list by identifier or slug (archived lists too, so an event can always be followed up)',
        params: IdentifierParams,
        response: { 200: ListSchema },
      },
    },
    (request) => lists.get(request.params.identifier),
  );
};
