/** The webhook receiver kit: `import { verifyWebhook } from '@shelfmark/client/webhooks'`. */
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookFailure,
  type HeaderBag,
} from './verify.js';
export { WebhookDeduplicator, type DeduplicatorOptions } from './dedupe.js';
export {
  expressWebhookHandler,
  fastifyWebhookPlugin,
  handleWebhook,
  nodeWebhookHandler,
  type FastifyLike,
  type FastifyReplyLike,
  type FastifyWebhookOptions,
  type RequestWithBody,
  type WebhookHandlerOptions,
  type WebhookOutcome,
} from './adapters.js';
