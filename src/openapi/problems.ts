/**
 * The problem document in OpenAPI: every error is an RFC 9457 problem rendered by app.ts, documented
 * per route (only in the document: the handlers' serialisation is untouched) by operations.ts.
 */
import { PROBLEMS, type ProblemCode } from '../problems/catalogue.js';

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

/**
 * What any route can answer before it runs, so every operation documents it. Node's parser answers
 * headers too large (431) as a problem before any route is found; the app's hooks refuse a URL or a
 * path segment too long (414) and a NUL in the URL (400), rendered by the route's error handler (the
 * token endpoint's is RFC 6749's 400 invalid_request, which its schema documents).
 */
export const BEFORE_ANY_ROUTE: readonly ProblemCode[] = ['headers-too-large'];
export const BEFORE_THE_ROUTE: readonly ProblemCode[] = ['uri-too-long', 'malformed-request'];

export function problemResponse(codes: ProblemCode[]): {
  description: string;
  content: Record<string, { schema: object }>;
} {
  return {
    description: codes.map((code) => `${code}: ${PROBLEMS[code].title}`).join('; '),
    content: { 'application/problem+json': { schema: problemSchema } },
  };
}
