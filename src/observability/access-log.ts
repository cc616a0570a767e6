/**
 * The access log: a line when a request starts and one when it ends, carrying only what an operator
 * reads (method, URL, status, time). Fastify's default lines serialise and redact every request's
 * headers, which cost more than answering the offers call itself; this controller is Fastify's own
 * extension point for changing them.
 */
import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { LogRequests } from '../config.js';

/**
 * Words that make a query parameter secret-looking, matched against the parts of its name split at
 * `_`, `-` and `.` (so `access_token`, `client_secret`, `api-key` match and `keyword`, `design` do not).
 * Credentials belong in headers, but a client that puts one in the URL must not get it written to the log.
 */
const SECRET_WORDS = new Set([
  'token',
  'secret',
  'password',
  'passwd',
  'pwd',
  'code',
  'key',
  'apikey',
  'sig',
  'signature',
  'credential',
  'credentials',
  'auth',
  'authorization',
  'session',
  'jwt',
]);

function secretLooking(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    // A broken escape is logged as sent; only the name's words decide.
  }
  return decoded
    .toLowerCase()
    .split(/[_\-.\s[\]]+/)
    .some((word) => SECRET_WORDS.has(word));
}

/** The URL as logged: the path, and the query with the values of secret-looking parameters replaced. */
export function loggedUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      return equals >= 0 && secretLooking(name) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, mark)}?${query}`;
}

/**
 * Whether a logger writes info lines. The line's fields (loggedUrl above all) are built only then: at
 * LOG_LEVEL=warn they were built for every request and thrown away (figures:
 * docs/performance.md#decisions). A logger without the check (none here) is taken as writing.
 */
function writesInfo(logger: FastifyBaseLogger): boolean {
  const check = (logger as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled;
  return check === undefined || check.call(logger, 'info');
}

export class AccessLog extends LogController {
  /** `all`: both lines of every request; `errors`: one line for requests answered with 4xx/5xx; `none`. */
  constructor(private readonly mode: LogRequests) {
    super();
  }

  override incomingRequest(request: FastifyRequest): void {
    if (this.mode === 'all' && writesInfo(request.log))
      request.log.info({ method: request.method, url: loggedUrl(request.url) }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error(
        {
          method: request.method,
          url: loggedUrl(request.url),
          statusCode: reply.statusCode,
          responseTime: reply.elapsedTime,
          err: error,
        },
        'request errored',
      );
    } else if ((this.mode === 'all' || (this.mode === 'errors' && reply.statusCode >= 400)) && writesInfo(reply.log)) {
      // In `errors` mode there was no incoming line, so this one names the request too.
      const what = this.mode === 'all' ? {} : { method: request.method, url: loggedUrl(request.url) };
      reply.log.info({ ...what, statusCode: reply.statusCode, responseTime: reply.elapsedTime }, 'request completed');
    }
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.info(`Route ${request.method}:${loggedUrl(request.url)} not found`);
  }
}
