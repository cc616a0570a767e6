/** Admin: curating schools and learning-material lists. Every change is announced through the outbox. */

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { initiatorOf } from '../audit/initiator.js';
import { feeds } from '../http/documented.js';
import type { ListService } from './list-service.js';
import { lmlReadRoutes } from './read.routes.js';
import {
  IdentifierParams,
  ListCreateBody,
  ListPatchBody,
  ListSchema,
  SchoolCreateBody,
  SchoolPatchBody,
  SchoolSchema,
  StatusBody,
} from './schemas.js';
import type { SchoolService } from './school-service.js';

export interface AdminLmlRoutesOptions {
  schools: SchoolService;
  lists: ListService;
}

export const adminLmlRoutes: FastifyPluginAsyncTypebox<AdminLmlRoutesOptions> = async (app, { schools, lists }) => {
  const schoolTags = ['admin: schools'];
  const listTags = ['admin: lists'];
  await app.register(lmlReadRoutes, {
    schools,
    lists,
    schoolTags,
    listTags,
    auth: 'admin',
    role: 'viewer',
    operationIds: {
      listSchools: 'adminListSchools',
      getSchool: 'adminGetSchool',
      listLists: 'adminListLists',
      getList: 'adminGetList',
    },
  });

  app.post(
    '/schools',
    {
      links: feeds([201], { parameter: 'identifier', field: 'identifier' }, [
        'adminGetSchool',
        'adminUpdateSchool',
        'getSchool',
      ]),
      config: { auth: 'admin', role: 'admin', idempotent: true, audit: 'school.created' },
      schema: {
        operationId: 'adminCreateSchool',
        tags: schoolTags,
        summary: 'Create a school (emits school.created)',
        body: SchoolCreateBody,
        response: { 201: SchoolSchema },
      },
    },
    async (request, reply) => {
      const school = await schools.create(request.body, initiatorOf(request));
      void reply.code(201);
      return school;
    },
  );
  app.patch(
    '/schools/:identifier',
    {
      config: { auth: 'admin', role: 'admin', idempotent: true, audit: 'school.updated' },
      schema: {
        operationId: 'adminUpdateSchool',
        tags: schoolTags,
        summary: 'Change a school (emits school.modified only when a value changes)',
        params: IdentifierParams,
        body: SchoolPatchBody,
        response: { 200: SchoolSchema },
      },
    },
    (request) => schools.update(request.params.identifier, request.body, initiatorOf(request)),
  );

  app.post(
    '/lists',
    {
      links: feeds([201], { parameter: 'identifier', field: 'identifier' }, [
        'adminGetList',
        'adminUpdateList',
        'adminSetListStatus',
        'getList',
        'listListOffers',
      ]),
      config: {
        auth: 'admin',
        role: 'admin',
        idempotent: true,
        audit: 'list.created',
        problems: ['invalid-ean', 'conflict'],
      },
      schema: {
        operationId: 'adminCreateList',
        tags: listTags,
        summary: 'Create a list with status created (emits list.created and list.status)',
        body: ListCreateBody,
        response: { 201: ListSchema },
      },
    },
    async (request, reply) => {
      const list = await lists.create(request.body, initiatorOf(request));
      void reply.code(201);
      return list;
    },
  );
  app.patch(
    '/lists/:identifier',
    {
      config: { auth: 'admin', role: 'admin', idempotent: true, audit: 'list.updated', problems: ['invalid-ean'] },
      schema: {
        operationId: 'adminUpdateList',
        tags: listTags,
        summary: "Change a list's content (emits list.updated only when something changes)",
        params: IdentifierParams,
        body: ListPatchBody,
        response: { 200: ListSchema },
      },
    },
    (request) => lists.update(request.params.identifier, request.body, initiatorOf(request)),
  );
  app.post(
    '/lists/:identifier/status',
    {
      config: {
        auth: 'admin',
        role: 'admin',
        idempotent: true,
        audit: 'list.status.changed',
        problems: ['illegal-transition', 'conflict'],
      },
      schema: {
        operationId: 'adminSetListStatus',
        tags: listTags,
        summary:
          'Move a list to another status (emits list.status, and list.published on publication); the same status is a no-op',
        params: IdentifierParams,
        body: StatusBody,
        response: { 200: ListSchema },
      },
    },
    (request) => lists.changeStatus(request.params.identifier, request.body.status, initiatorOf(request)),
  );
};
