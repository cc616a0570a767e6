/**
 * @shelfmark/client: a typed client for the Shelfmark Offer and Subscription API and a webhook
 * receiver kit. No runtime dependency: the platform's fetch and Web Crypto.
 */
export { ShelfmarkClient, type ShelfmarkClientOptions } from './client.js';
export { eanProblem, isValidEan, MAX_EANS_PER_QUERY } from './ean.js';
export { type Endpoints, type EnvironmentOptions, type ResolvedEndpoints, resolveEndpoints } from './environments.js';
export {
  ApiError,
  AuthenticationError,
  ConfigurationError,
  type InvalidEan,
  InvalidEanError,
  NetworkError,
  ShelfmarkError,
  TimeoutError,
} from './errors.js';
export type { FeedEvent, FeedPage, FeedQuery, StreamOptions } from './events.js';
export type { components, paths } from './generated/openapi.js';
export type { CallOptions, RetryOptions, TransportOptions } from './transport.js';
export type * from './types.js';
export * from './webhooks/index.js';
