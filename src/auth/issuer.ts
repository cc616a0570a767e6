/**
 * The issuer (RFC 8414 §2, RFC 9068 §2.2): PUBLIC_BASE_URL when configured, otherwise the origin the
 * request came in on. Fastify's trustProxy (TRUSTED_PROXIES) decides whether X-Forwarded-Proto and
 * X-Forwarded-Host count, so only a configured proxy can change the scheme or host a client sees.
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

export function issuerFor(config: Pick<Config, 'publicBaseUrl'>, request: FastifyRequest): string {
  return config.publicBaseUrl ?? `${request.protocol}://${request.host}`;
}
