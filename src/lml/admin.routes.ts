/** Admin: curating schools and learning-material lists. Every change is announced through the outbox. */

import type { IncomingMessage } from 'node:http';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault,
  FastifyRequest,
  FastifySchema,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { AuditAction } from '../audit/catalogue.js';
import { type Initiator, initiatorOf } from '../audit/initiator.js';
import { feeds, type RouteLinks } from '../http/documented.js';
import type { ProblemCode } from '../problems/catalogue.js';
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

type Request<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  IncomingMessage,
  S,
  TypeBoxTypeProvider
>;

/** One change an admin makes: its route, what it declares beyond the shared part, and the service call. */
interface Change<S extends FastifySchema> {
  method: 'POST' | 'PATCH';
  url: string;
  audit: AuditAction;
  problems?: readonly ProblemCode[];
  links?: RouteLinks;
  /** A create answers 201. */
  creates?: boolean;
  schema: S;
  run: (request: Request<S>, by: Initiator) => Promise<unknown>;
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

  // Every change here is an admin's, safe to repeat (Idempotency-Key) and audited as it declares.
  const change = <S extends FastifySchema>({ method, url, audit, problems, links, creates, schema, run }: Change<S>) =>
    // Registered with the schema's general type: `run` is the part typed by this route's own schema.
    app.route<RouteGenericInterface, ContextConfigDefault, FastifySchema>({
      method,
      url,
      ...(links === undefined ? {} : { links }),
      config: {
        auth: 'admin',
        role: 'admin',
        idempotent: true,
        audit,
        ...(problems === undefined ? {} : { problems }),
      },
      schema,
      handler: async (request, reply) => {
        const answer = await run(request as unknown as Request<S>, initiatorOf(request));
        if (creates === true) void reply.code(201);
        return answer;
      },
    });

  change({
    method: 'POST',
    url: '/schools',
    audit: 'school.created',
    links: feeds([201], { parameter: 'identifier', field: 'identifier' }, [
      'adminGetSchool',
      'adminUpdateSchool',
      'getSchool',
    ]),
    creates: true,
    schema: {
      operationId: 'adminCreateSchool',
      tags: schoolTags,
      summary: 'Create a school (emits school.created)',
      body: SchoolCreateBody,
      response: { 201: SchoolSchema },
    },
    run: (request, by) => schools.create(request.body, by),
  });
  change({
    method: 'PATCH',
    url: '/schools/:identifier',
    audit: 'school.updated',
    schema: {
      operationId: 'adminUpdateSchool',
      tags: schoolTags,
      summary: 'Change a school (emits school.modified only when a value changes)',
      params: IdentifierParams,
      body: SchoolPatchBody,
      response: { 200: SchoolSchema },
    },
    run: (request, by) => schools.update(request.params.identifier, request.body, by),
  });

  change({
    method: 'POST',
    url: '/lists',
    audit: 'list.created',
    problems: ['invalid-ean', 'conflict'],
    links: feeds([201], { parameter: 'identifier', field: 'identifier' }, [
      'adminGetList',
      'adminUpdateList',
      'adminSetListStatus',
      'getList',
      'listListOffers',
    ]),
    creates: true,
    schema: {
      operationId: 'adminCreateList',
      tags: listTags,
      summary: 'Create a list with status created (emits list.created and list.status)',
      body: ListCreateBody,
      response: { 201: ListSchema },
    },
    run: (request, by) => lists.create(request.body, by),
  });
  change({
    method: 'PATCH',
    url: '/lists/:identifier',
    audit: 'list.updated',
    problems: ['invalid-ean'],
    schema: {
      operationId: 'adminUpdateList',
      tags: listTags,
      summary: "Change a list's content (emits list.updated only when something changes)",
      params: IdentifierParams,
      body: ListPatchBody,
      response: { 200: ListSchema },
    },
    run: (request, by) => lists.update(request.params.identifier, request.body, by),
  });
  change({
    method: 'POST',
    url: '/lists/:identifier/status',
    audit: 'list.status.changed',
    problems: ['illegal-transition', 'conflict'],
    schema: {
      operationId: 'adminSetListStatus',
      tags: listTags,
      summary:
        'Move a list to another status (emits list.status, and list.published on publication); the same status is a no-op',
      params: IdentifierParams,
      body: StatusBody,
      response: { 200: ListSchema },
    },
    run: (request, by) => lists.changeStatus(request.params.identifier, request.body.status, by),
  });
};
