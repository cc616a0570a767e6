/**
 * The pipelined worker: a slot frees when its attempt ends, so sending goes on while completions wait
 * for their group commit, but never further than the completion backlog allows. That backlog plus
 * the attempts in flight is everything a crash can make the worker send again.
 */
import { expect, it } from 'vitest';
import type { SendResult, WebhookSender } from '../../src/delivery/sender.js';
import { type Completion, type CompletionResult, DeliveryStore } from '../../src/delivery/store.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { Metrics } from '../../src/observability/metrics.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { until } from '../support/until.js';
import { useHarness } from '../support/use-harness.js';
import { addSubscription, deliveryRows, emit } from './support.js';

/** Answers 204 at once and counts what it sent. */
class CountingSender implements WebhookSender {
  sent = 0;
  async send(): Promise<SendResult> {
    this.sent++;
    return { kind: 'response', statusCode: 204, headers: {}, bodySnippet: '' };
  }
  async close(): Promise<void> {}
}

/** A store whose group commits wait until the test opens the gate (a slow or stalled database). */
class GatedStore extends DeliveryStore {
  private open: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  commits = 0;
  openGate(): void {
    this.open();
  }
  override async completeMany(inputs: readonly Completion[]): Promise<CompletionResult[]> {
    await this.gate;
    this.commits++;
    return super.completeMany(inputs);
  }
}

describeEachEngine('the pipelined delivery worker', (engine) => {
  const h = useHarness(engine, { config: { webhookAllowPrivate: true } });

  /** A worker started over a gated store (nothing commits until the test opens the gate) and a counting sender. */
  const startGated = (owner: string, concurrency: number, completionBacklog: number) => {
    const store = new GatedStore(h.database.db);
    const sender = new CountingSender();
    const worker = new DeliveryWorker(
      { store, sender, clock: h.clock, config: h.config, metrics: new Metrics() },
      { owner, concurrency, completionBacklog, perSubscription: 100 },
    );
    worker.start();
    return { store, sender, worker };
  };

  it('sends on while completions wait, but never more than in flight + backlog unrecorded', async () => {
    const client = await createClientWithToken(h);
    for (let i = 0; i < 4; i++)
      await addSubscription(h.database.db, client.id, `http://127.0.0.1:9/${i}`, h.clock.now());
    await emit(h.database.db, h.clock.now(), 10);
    const { store, sender, worker } = startGated('pipelined', 4, 3);
    // The database records nothing: the worker stops at concurrency + backlog attempts sent.
    await until(() => sender.sent >= 7, 'the sender to have sent >= 7', 5000, 5);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sender.sent).toBe(7);
    expect(store.commits).toBe(0);

    store.openGate();
    await until(() => sender.sent === 40, 'the sender to have sent === 40', 5000, 5);
    await worker.stop();
    const rows = await deliveryRows(h.database.db);
    expect(rows).toHaveLength(40);
    expect(rows.every((row) => row.status === 'succeeded')).toBe(true);
    // Sends did not wait one commit each: completions were written in groups.
    expect(store.commits).toBeLessThan(40);
  });

  it('stop() drains the backlog: every attempt sent is recorded before it resolves', async () => {
    const client = await createClientWithToken(h);
    await addSubscription(h.database.db, client.id, 'http://127.0.0.1:9/a', h.clock.now());
    await emit(h.database.db, h.clock.now(), 6);
    const { store, sender, worker } = startGated('draining', 2, 2);
    await until(() => sender.sent >= 4, 'the sender to have sent >= 4', 5000, 5);
    const stopped = worker.stop();
    setTimeout(() => store.openGate(), 50);
    await stopped;
    const rows = await deliveryRows(h.database.db);
    expect(rows.filter((row) => row.status === 'succeeded')).toHaveLength(sender.sent);
    // Nothing is left leased: sent ones are recorded, claimed-ahead ones were handed back.
    expect(rows.every((row) => row.lease_owner === null)).toBe(true);
  });
});
