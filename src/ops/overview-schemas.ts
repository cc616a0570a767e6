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
    failedLast24h: Type.Integer(),
    p95DeliveryLatencyMs: Type.Union([Type.Number(), Type.Null()], {
      description: 'Commit to successful delivery, last 24 h',
    }),
    attemptsPerHour: Type.Array(
      Type.Object({ hour: Type.String({ format: 'date-time' }), succeeded: Type.Integer(), failed: Type.Integer() }),
    ),
    generatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Overview' },
);

export const SubscriptionHealthSchema = Type.Object({
  subscriptionId: Type.String(),
  lastSuccessAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  consecutiveFailures: Type.Integer(),
});

export const HealthPageSchema = Type.Object({ data: Type.Array(SubscriptionHealthSchema) });

/** The console's overview figures; `p95DeliveryLatencyMs` is null when nothing was delivered in 24 hours. */
export type Overview = Static<typeof OverviewSchema>;
export type SubscriptionHealth = Static<typeof SubscriptionHealthSchema>;
