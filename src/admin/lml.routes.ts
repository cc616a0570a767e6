/** Admin: curating schools and learning-material lists. Every change is announced through the outbox. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  IdentifierParams,
  ListCreateBody,
  ListPatchBody,
  ListSchema,
  SchoolCreateBody,
  SchoolPatchBody,
  SchoolSchema,
  StatusBody,
} from '../lml/schemas.js';
import { lmlReadRoutes } from '../lml/read-routes.js';
import type { Services } from '../services.js';

export const adminLmlRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    const schoolTags = ['admin: schools'];
    const listTags = ['admin: lists'];
    const security = [{ admin: [] }];
    await app.register(lmlReadRoutes(services, { schoolTags, listTags, security }));

    app.post(
      '/schools',
      {
        schema: {
          tags: schoolTags,
          security,
          summary: 'Create a school (emits school.created)',
          body: SchoolCreateBody,
          response: { 201: SchoolSchema },
        },
      },
      async (request, reply) => {
        const school = await services.schools.create(request.body);
        void reply.code(201);
        return school;
      },
    );
    app.patch(
      '/schools/:identifier',
      {
        schema: {
          tags: schoolTags,
          security,
          summary: 'Change a school (emits school.modified only when a value changes)',
          params: IdentifierParams,
          body: SchoolPatchBody,
          response: { 200: SchoolSchema },
        },
      },
      (request) => services.schools.update(request.params.identifier, request.body),
    );

    app.post(
      '/lists',
      {
        schema: {
          tags: listTags,
          security,
          summary: 'Create a list with status created (emits list.created and list.status)',
          body: ListCreateBody,
          response: { 201: ListSchema },
        },
      },
      async (request, reply) => {
        const list = await services.lists.create(request.body);
        void reply.code(201);
        return list;
      },
    );
    app.patch(
      '/lists/:identifier',
      {
        schema: {
          tags: listTags,
          security,
          summary: "Change a list's content (emits list.updated only when something changes)",
          params: IdentifierParams,
          body: ListPatchBody,
          response: { 200: ListSchema },
        },
      },
      (request) => services.lists.update(request.params.identifier, request.body),
    );
    app.post(
      '/lists/:identifier/status',
      {
        schema: {
          tags: listTags,
          security,
          summary:
            'Move a list to another status (emits list.status, and list.published on publication); the same status is a no-op',
          params: IdentifierParams,
          body: StatusBody,
          response: { 200: ListSchema },
        },
      },
      (request) => services.lists.changeStatus(request.params.identifier, request.body.status),
    );
  };
