/**
 * The console's overview and per-subscription delivery health on the wire; the service, the route
 * and the console page all take their types from here.
 */
import { type Static, Type } from '@sinclair/typebox';

export const OverviewSchema = Type.Object(
  {
    clients: Type.Integer({ description: 'Active (not revoked) clients' }),
    subscriptions: Type.Integer(),
    publishedLists: Type.Integer(),
    publishedOffers: Type.Integer(),
    queueDepth: Type.Integer({ description: 'Pending deliveries' }),
    failedAttempts24h: Type.Integer({
      description:
        'Attempts not answered 2xx in the hours of attemptsPerHour (the sum of its `failed`); a delivery waiting to retry counts here',
    }),
    failedDeliveries24h: Type.Integer({
      description:
        'Deliveries that failed for good (every retry used, or ended unsent) in the hours of attemptsPerHour and are still failed',
    }),
    failedLast24h: Type.Integer({
      description: 'Deprecated: the same number as failedDeliveries24h',
      deprecated: true,
    }),
    p95DeliveryLatencyMs: Type.Union([Type.Number(), Type.Null()], {
      description:
        'Commit to successful delivery (nearest-rank p95), over the newest 1,000 successes created in the last 24 h',
    }),
    attemptsPerHour: Type.Array(
      Type.Object({
        hour: Type.String({ format: 'date-time' }),
        succeeded: Type.Integer({ description: 'Attempts answered 2xx in this hour' }),
        failed: Type.Integer({ description: 'Attempts not answered 2xx in this hour' }),
      }),
      { description: 'The current hour and the 23 before it, oldest first' },
    ),
    workers: Type.Object(
      {
        alive: Type.Integer({
          description: 'Worker processes (`--role worker` or `all`) whose heartbeat was seen within aliveWithinSeconds',
        }),
        lastSeenAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
          description: 'The newest heartbeat of any worker process; null when none is on record',
        }),
        aliveWithinSeconds: Type.Integer({
          description: 'A worker counts as alive when seen this recently (three WORKER_HEARTBEAT_SECONDS)',
        }),
        missing: Type.Boolean({
          description: 'Deliveries are waiting (queueDepth > 0) and no worker is alive: nothing will send them',
        }),
      },
      { description: 'The delivery workers, from the heartbeats they record; API-only nodes are not workers' },
    ),
    generatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Overview' },
);

export const SubscriptionHealthSchema = Type.Object({
  subscriptionId: Type.String(),
  lastSuccessAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'The last successful delivery, to the minute',
  }),
  consecutiveFailedAttempts: Type.Integer({
    description:
      'Attempts that failed in a row, counted from the first failed one; a successful attempt resets it to 0',
  }),
  consecutiveFailures: Type.Integer({
    description: 'Deprecated: the same number as consecutiveFailedAttempts',
    deprecated: true,
  }),
  failingSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the first of those failed attempts happened; null when the last attempt succeeded',
  }),
});

export const HealthPageSchema = Type.Object({ data: Type.Array(SubscriptionHealthSchema) });

/** The console's overview figures; `p95DeliveryLatencyMs` is null when nothing was delivered in 24 hours. */
export type Overview = Static<typeof OverviewSchema>;
export type SubscriptionHealth = Static<typeof SubscriptionHealthSchema>;
