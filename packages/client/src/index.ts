/**
 * @shelfmark/client: a typed client for the Shelfmark Offer and Subscription API and a webhook
 * receiver kit. No runtime dependency: the platform's fetch and Web Crypto.
 */
export { ShelfmarkClient, type ShelfmarkClientOptions } from './client.js';
export { resolveEndpoints, type Endpoints, type EnvironmentOptions, type ResolvedEndpoints } from './environments.js';
export {
  ApiError,
  AuthenticationError,
  ConfigurationError,
  InvalidEanError,
  NetworkError,
  ShelfmarkError,
  TimeoutError,
  type InvalidEan,
} from './errors.js';
export { eanProblem, isValidEan, MAX_EANS_PER_QUERY } from './ean.js';
export type { CallOptions, RetryOptions, TransportOptions } from './transport.js';
export type * from './types.js';
export type { paths, components } from './generated/openapi.js';
export * from './webhooks/index.js';
