/** The webhook receiver kit: `import { verifyWebhook } from '@shelfmark/client/webhooks'`. */

export {
  expressWebhookHandler,
  type FastifyLike,
  type FastifyReplyLike,
  type FastifyWebhookOptions,
  fastifyWebhookPlugin,
  handleWebhook,
  nodeWebhookHandler,
  type RequestWithBody,
  type WebhookHandlerOptions,
  type WebhookOutcome,
} from './adapters.js';
export { type DeduplicatorOptions, WebhookDeduplicator } from './dedupe.js';
export {
  type HeaderBag,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookFailure,
  WebhookVerificationError,
} from './verify.js';
