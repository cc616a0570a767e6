/**
 * Documents the error answers of every route in the OpenAPI document (only there: the handlers'
 * serialisation is untouched). Every error is an RFC 9457 problem rendered by app.ts, so each route
 * gets the problems its guard and its inputs can cause, unless it documents its own.
 */
import type { FastifySchema } from 'fastify';
import { PROBLEMS, type ProblemCode } from '../errors.js';
import { securityFor } from './instrument.js';

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'code'],
  properties: {
    type: { type: 'string', description: 'URI reference of the problem type; a page at that path explains it' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string', description: 'The request id (also the x-request-id response header)' },
    code: { type: 'string', enum: Object.keys(PROBLEMS) },
  },
  additionalProperties: true,
};

export function problemResponse(codes: ProblemCode[]): {
  description: string;
  content: Record<string, { schema: object }>;
} {
  return {
    description: codes.map((code) => `${code}: ${PROBLEMS[code].title}`).join('; '),
    content: { 'application/problem+json': { schema: problemSchema } },
  };
}

export function withProblemResponses(schema: FastifySchema | undefined, url: string): FastifySchema | undefined {
  if (schema === undefined || url === '/api/auth/token') return schema;
  const declared = (schema.response ?? {}) as Record<string, unknown>;
  const problems: Record<string, ProblemCode[]> = {};
  const add = (status: number, code: ProblemCode): void => {
    problems[status] = [...(problems[status] ?? []), code];
  };
  if (schema.body !== undefined || schema.querystring !== undefined || schema.params !== undefined)
    add(400, 'validation-failed');
  if (schema.body !== undefined) add(400, 'malformed-body');
  const scheme = securityFor(url);
  if (scheme === 'bearer') {
    add(401, 'unauthenticated');
    add(401, 'invalid-token');
    add(403, 'token-expired');
    add(403, 'insufficient-scope');
  }
  if (scheme === 'admin') add(401, 'unauthenticated');
  if (schema.params !== undefined) add(404, 'not-found');
  const response: Record<string, unknown> = { ...declared };
  for (const [status, codes] of Object.entries(problems)) {
    if (response[status] === undefined) response[status] = problemResponse(codes);
  }
  if (scheme !== undefined) response['5XX'] = problemResponse(['internal']);
  return { ...schema, response };
}
