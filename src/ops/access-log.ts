/**
 * The access log: a line when a request starts and one when it ends, carrying only what an operator
 * reads (method, URL, status, time). Fastify's default lines serialise and redact every request's
 * headers, which cost more than answering the offers call itself; this controller is Fastify's own
 * extension point for changing them.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.info({ method: request.method, url: request.url }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, _request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ statusCode: reply.statusCode, responseTime: reply.elapsedTime, err: error }, 'request errored');
    else reply.log.info({ statusCode: reply.statusCode, responseTime: reply.elapsedTime }, 'request completed');
  }
}
