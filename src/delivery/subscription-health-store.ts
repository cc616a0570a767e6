/** SQL for announcing a subscription's health (subscription-health.ts), run inside the completion's transaction. */
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';

export class HealthStore {
  constructor(private readonly db: Executor) {}

  /**
   * Records that subscription.failing is announced for the current failing period, when the
   * subscription is active, has been failing since at or before `cutoff`, and this period (identified
   * by its failing_since; a success clears it, so new failures start another) was not announced yet.
   * One upsert whose update only happens for a new period: two workers recording failures of the same
   * subscription at once announce it once (PostgreSQL re-checks the condition on the row it waited for).
   */
  async markFailingNoticed(id: string, now: number, cutoff: number): Promise<boolean> {
    const rows = await this.db
      .insertInto('subscription_notices')
      .columns(['subscription_id', 'failing_since', 'noticed_at'])
      .expression((eb) =>
        eb
          .selectFrom('subscriptions')
          .select(['id', 'failing_since', sql<number>`cast(${now} as bigint)`.as('noticed_at')])
          .where('id', '=', id)
          .where('status', '=', 'active')
          .where('failing_since', 'is not', null)
          .where('failing_since', '<=', cutoff),
      )
      .onConflict((conflict) =>
        conflict
          .column('subscription_id')
          .doUpdateSet((eb) => ({
            failing_since: eb.ref('excluded.failing_since'),
            noticed_at: eb.ref('excluded.noticed_at'),
          }))
          .where('subscription_notices.failing_since', '<>', (eb) => eb.ref('excluded.failing_since')),
      )
      .returning('subscription_id')
      .execute();
    return rows.length > 0;
  }

  /** The same client's other active subscriptions to `event`: who hears about subscription `id`. */
  async audience(id: string, event: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('subscriptions as other')
      .innerJoin('subscriptions as subject', 'subject.client_ref', 'other.client_ref')
      .select('other.id')
      .where('subject.id', '=', id)
      .where('other.id', '<>', id)
      .where('other.event', '=', event)
      .where('other.status', '=', 'active')
      .execute();
    return rows.map((row) => row.id);
  }
}
