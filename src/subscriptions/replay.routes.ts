/**
 * Replay past events into a subscription: POST /api/lml/v1/subscriptions/{id}/replay (the client,
 * scope webhooks:manage), the portal's "Replay since…" (/portal/api/…, the partner's own) and the
 * console's (/api/admin/v1/…, any client's, role support).
 */

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { initiatorOf } from '../audit/initiator.js';
import { principalOf } from '../auth/guard.js';
import type { Clock } from '../clock.js';
import { encodeCursor } from '../events/feed-cursor.js';
import { documentedAs } from '../http/documented.js';
import { portalClientOf } from '../identity/session-guard.js';
import { MAX_REPLAY_EVENTS, parseReplayStart, REPLAY_START_RULE, type SubscriptionReplay } from './replay.js';
import { SubscriptionIdParams } from './schemas.js';

export const REPLAY_FROM_DESCRIPTION =
  'Replay the past events this subscription matches (its filter included), oldest first, from this ISO 8601 time ' +
  `or after this cursor of GET /api/lml/v1/events: at most ${MAX_REPLAY_EVENTS} events (422 replay-too-large beyond). ` +
  'They are delivered like live events (signed, retried), and live events follow with no gap and no duplicate.';

export const ReplayBody = Type.Object(
  {
    from: documentedAs(
      Type.String({
        maxLength: 100,
        description: REPLAY_FROM_DESCRIPTION,
        examples: ['2026-09-01T00:00:00Z'],
      }),
      REPLAY_START_RULE,
    ),
  },
  { additionalProperties: false },
);

export const ReplayResult = Type.Object(
  {
    queued: Type.Integer({ description: 'Deliveries queued, one per matching past event not already pending' }),
    until: Type.String({
      description: 'A feed cursor: the replay covers the events up to it, later ones arrive live',
    }),
  },
  { $id: 'ReplayResult', additionalProperties: false },
);

export const replayRoutes: FastifyPluginAsyncTypebox<{ replays: SubscriptionReplay; clock: Clock }> = async (
  app,
  { replays, clock },
) => {
  app.post(
    '/api/lml/v1/subscriptions/:id/replay',
    {
      config: {
        auth: { scope: 'webhooks:manage' },
        idempotent: true,
        problems: ['replay-too-large'],
        audit: ['subscription.replayed'],
      },
      schema: {
        operationId: 'replaySubscription',
        tags: ['subscriptions'],
        summary: 'Queue deliveries of past events into one of your subscriptions',
        description: `${REPLAY_FROM_DESCRIPTION} Events the subscription has pending are not queued twice.`,
        params: SubscriptionIdParams,
        body: ReplayBody,
        response: { 202: ReplayResult },
      },
    },
    async (request, reply) => {
      const start = parseReplayStart(request.body.from, '/from');
      const outcome = await replays.replay(
        principalOf(request).clientRef,
        request.params.id,
        start,
        initiatorOf(request),
      );
      void reply.code(202);
      return { queued: outcome.queued, until: encodeCursor({ position: outcome.upTo, asOf: clock.now() }) };
    },
  );

  // The same for the portal's page and the console: the partner's own subscriptions, or any.
  const browserReplay = (path: string, auth: 'portal' | 'admin', operationId?: string) =>
    app.post(
      path,
      {
        config: {
          auth,
          ...(auth === 'admin' ? { role: 'support' as const } : {}),
          idempotent: true,
          // The operator may name a revoked client's subscription; a revoked client has no portal session.
          problems: auth === 'admin' ? ['replay-too-large', 'client-revoked'] : ['replay-too-large'],
          audit: ['subscription.replayed'],
        },
        schema: {
          ...(operationId === undefined
            ? { hide: true }
            : {
                operationId,
                tags: ['admin: subscriptions'],
                summary: "Queue deliveries of past events into a client's subscription",
                description: REPLAY_FROM_DESCRIPTION,
              }),
          params: SubscriptionIdParams,
          body: ReplayBody,
          response: { 202: ReplayResult },
        },
      },
      async (request, reply) => {
        const start = parseReplayStart(request.body.from, '/from');
        const client = auth === 'portal' ? portalClientOf(request) : undefined;
        const outcome = await replays.replay(client, request.params.id, start, initiatorOf(request));
        void reply.code(202);
        return { queued: outcome.queued, until: encodeCursor({ position: outcome.upTo, asOf: clock.now() }) };
      },
    );
  browserReplay('/portal/api/subscriptions/:id/replay', 'portal');
  browserReplay('/api/admin/v1/subscriptions/:id/replay', 'admin', 'adminReplaySubscription');
};
