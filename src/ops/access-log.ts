/**
 * The access log: a line when a request starts and one when it ends, carrying only what an operator
 * reads (method, URL, status, time). Fastify's default lines serialise and redact every request's
 * headers, which cost more than answering the offers call itself; this controller is Fastify's own
 * extension point for changing them.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { LogRequests } from '../config.js';

export class AccessLog extends LogController {
  /** `all`: both lines of every request; `errors`: one line for requests answered with 4xx/5xx; `none`. */
  constructor(private readonly mode: LogRequests) {
    super();
  }

  override incomingRequest(request: FastifyRequest): void {
    if (this.mode === 'all') request.log.info({ method: request.method, url: request.url }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error(
        {
          method: request.method,
          url: request.url,
          statusCode: reply.statusCode,
          responseTime: reply.elapsedTime,
          err: error,
        },
        'request errored',
      );
    } else if (this.mode === 'all' || (this.mode === 'errors' && reply.statusCode >= 400)) {
      // In `errors` mode there was no incoming line, so this one names the request too.
      const what = this.mode === 'all' ? {} : { method: request.method, url: request.url };
      reply.log.info({ ...what, statusCode: reply.statusCode, responseTime: reply.elapsedTime }, 'request completed');
    }
  }
}
