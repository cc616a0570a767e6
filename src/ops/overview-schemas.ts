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
    failedLast24h: Type.Integer({
      description: 'Deliveries that failed for good (every retry used) in the hours of attemptsPerHour',
    }),
    p95DeliveryLatencyMs: Type.Union([Type.Number(), Type.Null()], {
      description: 'Commit to successful delivery, over the newest 5,000 successes created in the last 24 h',
    }),
    attemptsPerHour: Type.Array(
      Type.Object({
        hour: Type.String({ format: 'date-time' }),
        succeeded: Type.Integer({ description: 'Attempts answered 2xx in this hour' }),
        failed: Type.Integer({ description: 'Attempts not answered 2xx in this hour' }),
      }),
      { description: 'The current hour and the 23 before it, oldest first' },
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
  consecutiveFailures: Type.Integer({ description: 'Deliveries that failed for good since the last success' }),
});

export const HealthPageSchema = Type.Object({ data: Type.Array(SubscriptionHealthSchema) });

/** The console's overview figures; `p95DeliveryLatencyMs` is null when nothing was delivered in 24 hours. */
export type Overview = Static<typeof OverviewSchema>;
export type SubscriptionHealth = Static<typeof SubscriptionHealthSchema>;
