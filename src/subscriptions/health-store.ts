/** SQL for announcing a subscription's health (health.ts), run inside the completion's transaction. */
import type { Executor } from '../db/database.js';

export class HealthStore {
  constructor(private readonly db: Executor) {}

  /**
   * Marks subscription.failing as announced when the subscription is active, has been failing since at
   * or before `cutoff`, and was not yet announced in this failing period (a success clears
   * failing_since, so the next run of failures starts a new period). One conditional update, so two
   * workers recording failures of the same subscription at once announce it once.
   */
  async markFailingNoticed(id: string, now: number, cutoff: number): Promise<boolean> {
    const result = await this.db
      .updateTable('subscriptions')
      .set({ failing_noticed_at: now })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .where('failing_since', 'is not', null)
      .where('failing_since', '<=', cutoff)
      .where((eb) =>
        eb.or([eb('failing_noticed_at', 'is', null), eb('failing_noticed_at', '<', eb.ref('failing_since'))]),
      )
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
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
