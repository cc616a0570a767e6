/**
 * Cross-cutting HTTP behaviour, installed before any route exists (each part attaches itself per
 * route in an onRoute hook, from what the route declares, so only the routes that need it pay for it).
 * Order matters for onSend: ETag and Idempotency-Key see the uncompressed body, compression runs after them.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { IdempotencyService } from '../idempotency/service.js';
import { IdempotencyStore } from '../idempotency/store.js';
import { registerCompression } from './compression.js';
import { registerCors } from './cors.js';
import { registerEtagEncodingSuffix } from './etag.js';
import { idempotencyHooks } from './idempotency.js';
import { registerMediaTypeRule } from './media-type.js';
import { registerQueryRule } from './query-rule.js';
import { type GuardFactory, registerRouteBehaviour } from './route-behaviour.js';

export async function registerHttpFeatures(
  app: FastifyInstance,
  { config, db, clock }: { config: Config; db: Db; clock: Clock },
  guardFor: GuardFactory,
): Promise<void> {
  registerQueryRule(app);
  registerMediaTypeRule(app);
  // What each route declares (guard, Idempotency-Key, ETag), before compression adds its onSend.
  const idempotency = idempotencyHooks(new IdempotencyService(new IdempotencyStore(db.kysely), clock));
  registerRouteBehaviour(app, { guardFor, idempotency });
  await registerCompression(app, config);
  registerEtagEncodingSuffix(app);
  await registerCors(app, config);
}
