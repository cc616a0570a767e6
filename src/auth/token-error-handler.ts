/**
 * Every failure before or around the token handler (no body, wrong media type, bad JSON, a field of the
 * wrong type, a repeated form field, too large) is the client's fault: RFC 6749 invalid_request, 400.
 * Only a failure of the service itself is a 500, in the same shape so OAuth clients can read it.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from '../problems/catalogue.js';
import { toProblem } from '../problems/to-problem.js';
import type { OAuthErrorBody } from './oauth-errors.js';

export function tokenErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): OAuthErrorBody {
  void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  // Our own refusals before the handler (URL limits, NUL) and an unreachable database arrive as Problems.
  const problem: Problem = error instanceof Problem ? error : toProblem(error);
  if (problem.status === 503) {
    void reply.code(503).headers(problem.headers);
    return { error: 'temporarily_unavailable', error_description: problem.detail ?? problem.message };
  }
  if (error instanceof Problem && problem.status < 500) {
    void reply.code(400);
    return { error: 'invalid_request', error_description: problem.detail ?? problem.message };
  }
  const status = error.statusCode ?? 500;
  if (error.validation !== undefined || (status >= 400 && status < 500) || error instanceof SyntaxError) {
    void reply.code(400);
    return { error: 'invalid_request', error_description: describeMalformed(error) };
  }
  request.log.error({ err: error }, 'token request failed');
  void reply.code(500);
  return {
    error: 'server_error',
    error_description: 'an unexpected error occurred; quote the x-request-id header when reporting it',
  };
}

function describeMalformed(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'send the parameters as application/x-www-form-urlencoded (RFC 6749 §4.4.2)';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'the body is not valid JSON; send application/x-www-form-urlencoded';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'the request body is too large';
    default:
      break;
  }
  if (error.validation !== undefined) {
    const issue = error.validation[0];
    // An object without grant_type: the schema marks it required, so generated clients send it.
    if (issue?.keyword === 'required' && issue.params.missingProperty === 'grant_type') return 'grant_type is required';
    if (issue === undefined || issue.instancePath === '')
      return 'send grant_type=client_credentials as an application/x-www-form-urlencoded body';
    return `${issue.instancePath.slice(1)} ${issue.message ?? 'is invalid'} (each parameter once, as text)`;
  }
  return 'the request could not be parsed';
}
