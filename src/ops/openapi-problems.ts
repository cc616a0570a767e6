/**
 * The problem document in OpenAPI: every error is an RFC 9457 problem rendered by app.ts, documented
 * per route (only in the document: the handlers' serialisation is untouched) by openapi-routes.ts.
 */
import { PROBLEMS, type ProblemCode } from '../errors.js';

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
