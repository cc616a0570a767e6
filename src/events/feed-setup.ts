/** Builds the event feed of one process (services.ts): the store, the long-poll waiters, the service. */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { EventFeed } from './feed.js';
import { FeedStore } from './feed-store.js';
import { FeedWaiters } from './feed-waiters.js';
import type { Outbox } from './outbox.js';

export interface EventFeedParts {
  feed: EventFeed;
  /** Started (LISTEN) when the app is ready, closed before it stops (the events route plugin does both). */
  waiters: FeedWaiters;
}

export function createEventFeed(deps: {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'eventsMaxWaitingPerClient'>;
  /** How many days events are kept (0 = forever): the retention rules decide it (retention/policy.ts). */
  eventDays: number;
  outbox: Outbox;
}): EventFeedParts {
  const { db, clock, config, eventDays, outbox } = deps;
  const store = new FeedStore(db.kysely, db.dialect);
  const waiters = new FeedWaiters(store, {
    maxWaitingPerClient: config.eventsMaxWaitingPerClient,
    // Notifications (LISTEN, PostgreSQL) wake waiters at once, the poll only covers a lost one; without
    // them (SQLite) other processes (CLUSTER_WORKERS) can only be noticed by polling (a max(seq) look-up).
    pollMs: db.listen === undefined ? 250 : 1000,
    // While nobody waits, the commits of this much time share one look-up (and on PostgreSQL one
    // stamping of their positions): a reader arriving meanwhile looks up and stamps itself.
    lookUpAfterMs: 200,
  });
  outbox.onEventsCommitted(() => waiters.wake());
  return { feed: new EventFeed(store, waiters, clock, () => eventDays), waiters };
}
