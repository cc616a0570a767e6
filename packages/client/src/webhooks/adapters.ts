/**
 * Receiver adapters for node:http, Express and Fastify. Each keeps the raw body (signatures cover the
 * exact bytes), answers 401 with the reason on a bad signature, and on a good one answers 204 at once
 * and only then hands the event to `onEvent` (Shelfmark counts slow answers as failures and retries).
 * Express and Fastify are typed structurally here: the kit imports neither.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookDeduplicator } from './dedupe.js';
import {
  type HeaderBag,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from './verify.js';

export interface WebhookHandlerOptions
  extends Pick<VerifyWebhookOptions, 'secret' | 'secrets' | 'toleranceSeconds' | 'now'> {
  /** Called after the 204 went out, once per verified (and, with a deduplicator, new) event. */
  onEvent: (event: WebhookEvent) => void | Promise<void>;
  /** Refused requests and failures of onEvent; default: logged with console.error. */
  onError?: (error: unknown, event?: WebhookEvent) => void;
  /**
   * Skips repeats (still answered 204) of an event id (x-hook-event-id), so an event that also came
   * through the feed, or to a second subscription, is handled once; of the webhook-id when a sender
   * omits the event id.
   */
  deduplicator?: WebhookDeduplicator;
  /** Larger bodies are refused with 413 (default 1 MiB; Shelfmark's are < 200 bytes). */
  maxBodyBytes?: number;
}

/** What an adapter answers: status and a small JSON body. */
export interface WebhookOutcome {
  status: number;
  body?: { error: string; message: string };
  event?: WebhookEvent;
}

const defaultOnError = (error: unknown): void =>
  console.error('[shelfmark webhooks]', error instanceof Error ? error.message : error);

/** The framework-free core: verify, de-duplicate, and say what to answer. */
export async function handleWebhook(
  options: WebhookHandlerOptions,
  rawBody: Uint8Array | string,
  headers: HeaderBag,
): Promise<WebhookOutcome> {
  try {
    const event = await verifyWebhook({ ...options, rawBody, headers });
    const key = event.eventId ?? event.id;
    if (key !== undefined && options.deduplicator?.isDuplicate(key) === true) return { status: 204 };
    return { status: 204, event };
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    (options.onError ?? defaultOnError)(error);
    const status = error.reason === 'invalid-payload' ? 400 : error.reason === 'no-secret' ? 500 : 401;
    return { status, body: { error: error.reason, message: error.message } };
  }
}

/** Runs onEvent after the answer was sent; its failures go to onError, never to the sender. */
function dispatch(options: WebhookHandlerOptions, event: WebhookEvent | undefined): void {
  if (event === undefined) return;
  setImmediate(() => {
    Promise.resolve()
      .then(() => options.onEvent(event))
      .catch((error: unknown) => {
        if (event.id !== undefined) options.deduplicator?.forget(event.id);
        (options.onError ?? defaultOnError)(error, event);
      });
  });
}

class BodyTooLarge extends Error {}

function readBody(request: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    request.on('data', (chunk: Uint8Array) => {
      size += chunk.byteLength;
      if (size > limit) {
        request.removeAllListeners('data');
        request.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      const body = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        body.set(chunk, offset);
        offset += chunk.byteLength;
      }
      resolve(body);
    });
    request.on('error', reject);
  });
}

function answer(response: ServerResponse, outcome: WebhookOutcome): void {
  if (outcome.body === undefined) {
    response.writeHead(outcome.status).end();
    return;
  }
  response.writeHead(outcome.status, { 'content-type': 'application/json' }).end(JSON.stringify(outcome.body));
}

/** A request as Express (or a body-parsing middleware) may leave it: `body` set by express.raw() or express.text(). */
export type RequestWithBody = IncomingMessage & { body?: unknown };

/**
 * A `(req, res)` handler for node:http — `createServer(nodeWebhookHandler({...}))` — that also works as
 * an Express route handler: `app.post('/hooks', expressWebhookHandler({...}))`. It reads the raw body
 * itself, or takes the Buffer/string that express.raw()/express.text() left in req.body. A body that a
 * JSON parser already turned into an object cannot be verified: that is a 500 naming the fix.
 */
export function nodeWebhookHandler(
  options: WebhookHandlerOptions,
): (request: RequestWithBody, response: ServerResponse) => void {
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  return (request, response) => {
    const run = async (): Promise<void> => {
      let raw: Uint8Array | string;
      if (request.body instanceof Uint8Array || typeof request.body === 'string') raw = request.body;
      else if (
        (request.body !== undefined &&
          request.body !== null &&
          typeof request.body === 'object' &&
          Object.keys(request.body).length > 0) ||
        request.readableEnded
      ) {
        // Parsed by a JSON/form middleware, or read by someone else: the exact bytes are gone.
        answer(response, {
          status: 500,
          body: {
            error: 'body-parsed',
            message:
              'the body was parsed before verification; mount express.raw({ type: "*/*" }) (or nothing) before this handler',
          },
        });
        return;
      } else {
        try {
          raw = await readBody(request, limit);
        } catch (error) {
          if (error instanceof BodyTooLarge)
            return answer(response, {
              status: 413,
              body: { error: 'body-too-large', message: `bodies above ${limit} bytes are refused` },
            });
          throw error;
        }
      }
      const outcome = await handleWebhook(options, raw, request.headers);
      answer(response, outcome);
      dispatch(options, outcome.event);
    };
    run().catch((error: unknown) => {
      (options.onError ?? defaultOnError)(error);
      if (!response.headersSent) response.writeHead(500).end();
    });
  };
}

/** The same handler, named for Express: `app.post('/hooks', expressWebhookHandler({ secret, onEvent }))`. */
export const expressWebhookHandler = nodeWebhookHandler;

/** The parts of a Fastify instance the plugin uses (Fastify itself is not imported). */
export interface FastifyLike {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    options: { parseAs: 'buffer'; bodyLimit?: number },
    parser: (request: unknown, body: Buffer, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  post(
    path: string,
    handler: (request: { body: unknown; headers: HeaderBag }, reply: FastifyReplyLike) => Promise<unknown>,
  ): unknown;
}

export interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  send(payload?: unknown): FastifyReplyLike;
}

export interface FastifyWebhookOptions extends WebhookHandlerOptions {
  /** Route path inside the plugin's prefix (default `/`). */
  path?: string;
}

/**
 * A Fastify plugin: `await app.register(fastifyWebhookPlugin({ path: '/hooks', secret, onEvent }))`.
 * Inside its own encapsulated context every body is kept as a raw Buffer, so the app's JSON parser is
 * untouched elsewhere.
 */
export function fastifyWebhookPlugin(options: FastifyWebhookOptions): (instance: FastifyLike) => Promise<void> {
  return async (instance) => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: options.maxBodyBytes ?? 1024 * 1024 },
      (_request, body, done) => done(null, body),
    );
    instance.post(options.path ?? '/', async (request, reply) => {
      const raw = request.body instanceof Uint8Array ? request.body : new Uint8Array(0);
      const outcome = await handleWebhook(options, raw, request.headers);
      dispatch(options, outcome.event);
      return reply.code(outcome.status).send(outcome.body);
    });
  };
}
