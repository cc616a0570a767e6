/**
 * Turns anything thrown while handling a request into a Problem from the catalogue: our own Problems
 * as they are, Fastify's validation and parser errors by code, an unreachable database as a 503, and
 * everything else as a 500 (a bug). The app's error handler and the token endpoint's both use it.
 */
import type { FastifyError } from 'fastify';
import { Problem } from './catalogue.js';
import { isDatabaseUnavailable } from './db-unavailable.js';
import { readableIssues } from './validation-issues.js';

export function toProblem(error: FastifyError | Problem): Problem {
  if (error instanceof Problem) return error;
  // The database is down or restarting: a retryable 503, not a 500 (the pool reconnects by itself).
  if (isDatabaseUnavailable(error))
    return new Problem('unavailable', 'the database cannot be reached; retry shortly', {}, { 'retry-after': '5' });
  if (error.validation !== undefined) {
    const location = error.validationContext ?? 'request';
    // A union of literals reads as one issue naming the allowed values (validation-issues.ts).
    const issues = readableIssues(error.validation);
    const errors = issues.map((issue) => ({
      location,
      path: issue.instancePath === '' ? '/' : issue.instancePath,
      message: issue.message,
      ...(issue.params && 'missingProperty' in issue.params ? { property: issue.params.missingProperty } : {}),
      ...(issue.params && 'additionalProperty' in issue.params ? { property: issue.params.additionalProperty } : {}),
      ...(issue.allowed === undefined ? {} : { allowed: issue.allowed }),
    }));
    const collapsed = issues.length < error.validation.length;
    const detail = collapsed
      ? issues
          .map((issue) => `${location} ${issue.instancePath.slice(1).replaceAll('/', '.')} ${issue.message}`)
          .join(', ')
      : `${location} ${error.message.replace(/^(body|querystring|params|headers)\/?\s*/, '')}`;
    return new Problem('validation-failed', detail, { errors });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Problem('body-too-large', 'the request body exceeds the size limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new Problem('unsupported-media-type', 'send application/json (or a form for the token endpoint)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new Problem('malformed-body', 'the JSON body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new Problem('malformed-body', 'the body is not valid JSON');
    default:
      break;
  }
  // PostgreSQL refusing a character its text type cannot hold (NUL, invalid UTF-8): bad input, not our bug.
  if (error.code === '22021' || error.code === '22P05')
    return new Problem('malformed-request', 'the request contains characters that cannot be stored');
  if (error instanceof SyntaxError || error.statusCode === 400)
    return new Problem('malformed-body', 'the request could not be parsed');
  if (error.statusCode === 413) return new Problem('body-too-large');
  if (error.statusCode === 415) return new Problem('unsupported-media-type');
  if (error.statusCode === 503) return new Problem('unavailable');
  return new Problem('internal', 'an unexpected error occurred; quote the instance id when reporting it');
}
