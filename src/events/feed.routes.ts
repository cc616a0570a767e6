/**
 * GET /api/lml/v1/events: the event feed (src/events/feed.ts). LML events need lml:read, offer events
 * offers:read (either admits the route; `types` asking for an event of a missing scope is a 403), and
 * subscription.failing / .disabled are the client's own only.
 */

import type { Socket } from 'node:net';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { parseBearer } from '../auth/basic.js';
import { principalOf } from '../auth/guard.js';
import type { TokenService } from '../auth/token-service.js';
import type { Db } from '../db/database.js';
import { FeedPageSchema, FeedQuerySchema } from './feed-schemas.js';
import type { EventFeedParts } from './feed-setup.js';

export interface EventFeedRoutesOptions {
  eventFeed: EventFeedParts;
  db: Pick<Db, 'listen'>;
  tokens: Pick<TokenService, 'recheck'>;
}

export const eventFeedRoutes: FastifyPluginAsyncTypebox<EventFeedRoutesOptions> = async (
  app,
  { eventFeed, db, tokens },
) => {
  const { feed, waiters } = eventFeed;
  // PostgreSQL: other nodes' commits wake this node's waiters. Before the server stops waiting for its
  // open requests, the held ones answer (an empty page with their `next`), so shutdown is not delayed.
  app.addHook('onReady', () => waiters.start(db.listen?.bind(db)));
  // The sockets of feed requests not yet answered. On shutdown the released ones answer within
  // moments; a socket still here after 2 s (a client that went away without closing it) is destroyed,
  // so it cannot hold the server's close open.
  const open = new Set<Socket>();
  app.addHook('preClose', async () => {
    await waiters.close();
    for (const started = Date.now(); open.size > 0 && Date.now() - started < 2000; )
      await new Promise((resolve) => setTimeout(resolve, 10));
    for (const socket of open) socket.destroy();
  });
  app.get(
    '/api/lml/v1/events',
    {
      config: {
        auth: { scope: 'lml:read', orScopes: ['offers:read'] },
        etag: true,
        problems: ['cursor-expired', 'insufficient-scope', 'rate-limited'],
      },
      schema: {
        operationId: 'listEvents',
        tags: ['lml'],
        summary: 'The events you may see, oldest first in commit order (pull instead of push)',
        description:
          'Each item is the webhook body plus `id` (the x-hook-event-id of its deliveries), `event`, `occurredAt` and `cursor`. ' +
          'Follow `next` page by page: the order is the order in which events committed, the same for every reader and on every node, ' +
          'and a reader that follows `next` never misses an event nor sees one twice. With `wait=N` an empty answer is held up to N ' +
          'seconds until an event is visible (at most EVENTS_MAX_WAITING_PER_CLIENT such requests per client and node: 429 beyond). ' +
          'A cursor older than the event retention (EVENT_RETENTION_DAYS) answers 410 cursor-expired, naming where the feed now ' +
          'starts; a value that is not a cursor answers 400.',
        querystring: FeedQuerySchema,
        response: { 200: FeedPageSchema },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      // The client went away while waiting: stop holding its place (and its count against the cap).
      // (An answer at once has nothing to stop: no controller made per request.)
      const gone = request.query.wait > 0 ? new AbortController() : undefined;
      const abort = (): void => gone?.abort();
      if (gone !== undefined) reply.raw.once('close', abort);
      const socket = request.raw.socket;
      open.add(socket);
      try {
        const answer = await feed.page(
          { clientId: principal.clientId, clientRef: principal.clientRef, scopes: principal.scopes },
          request.query,
          gone?.signal,
        );
        // A long-poll may have waited past its client's revocation or secret reset (on any node): what
        // committed meanwhile goes only to a token that is still good.
        if (request.query.wait > 0) await tokens.recheck(parseBearer(request.headers.authorization) ?? '');
        // Shutting down: the connection must not stay open (keep-alive) after this answer.
        if (waiters.closing) void reply.header('connection', 'close');
        // Finished JSON bytes (feed.ts) with its tag: the serialiser and the ETag hook's hashing are skipped.
        void (reply as FastifyReply)
          .header('etag', answer.etag)
          .type('application/json; charset=utf-8')
          .send(answer.body);
        return reply;
      } finally {
        if (gone !== undefined) reply.raw.off('close', abort);
        // Once the answer has left (or failed), the connection is idle: the server's close handles it.
        const settle = (): void => void open.delete(socket);
        if (reply.raw.writableFinished || reply.raw.destroyed) settle();
        else reply.raw.once('finish', settle).once('close', settle);
      }
    },
  );
};
