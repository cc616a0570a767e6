/**
 * The operator's and partner's reads never walk the history: every query the overview,
 * subscription health, the /metrics gauges and the delivery lists send is explained on the real
 * engine, and none may scan deliveries, events or attempts in full. SQLite: no `SCAN` of those
 * tables except a due index (whose rows are the queue, bounded by the backlog). PostgreSQL: with
 * sequential scans priced out, no `Seq Scan` on them remains (one remains only where no index fits).
 */
import { type KyselyPlugin, type PluginTransformQueryArgs, type RootOperationNode, sql } from 'kysely';
import { beforeEach, expect, it } from 'vitest';
import type { Db, Executor } from '../../src/db/database.js';
import { type DeliveryFilter, DeliveryQueryStore } from '../../src/delivery/query-store.js';
import { HOUR_MS, hourStart } from '../../src/delivery/stats.js';
import { OverviewStore } from '../../src/overview/store.js';
import { SubscriptionStore } from '../../src/subscriptions/store.js';
import { addSubscription, emit, recordAttempt } from '../delivery/support.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

/** The delivery log reads subscriptions through their own store, as services.ts wires it. */
const subscriptionsIn = (executor: Executor) => new SubscriptionStore(executor);

/** Records every query a store sends, compiled, so the test can explain it. */
class Recorder implements KyselyPlugin {
  readonly nodes: RootOperationNode[] = [];
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.nodes.push(args.node);
    return args.node;
  }
  async transformResult<R>(args: { result: R }): Promise<R> {
    return args.result;
  }
}

const HISTORY_TABLES =
  /\b(SCAN) (deliveries|d|events|e|delivery_attempts)\b(?! USING (COVERING )?INDEX deliveries_due_)/;

describeEachEngine('history reads use indexes', (engine) => {
  const h = useHarness(engine);
  let recorder: Recorder;
  let db: Db;
  let clientRef: string;
  let subscriptions: string[];
  beforeEach(async () => {
    recorder = new Recorder();
    db = { ...h.database.db, kysely: h.database.db.kysely.withPlugin(recorder) };
    const shop = await createClientWithToken(h, 'Shop');
    clientRef = shop.id;
    const now = h.clock.now();
    subscriptions = [
      await addSubscription(h.database.db, clientRef, 'http://127.0.0.1:9/a', now),
      await addSubscription(h.database.db, clientRef, 'http://127.0.0.1:9/b', now),
    ];
    await emit(h.database.db, now, 4);
    const rows = await h.database.db.kysely.selectFrom('deliveries').select('id').orderBy('id').execute();
    for (const [index, row] of rows.entries()) {
      if (index % 3 === 0) continue;
      const status = index % 3 === 1 ? 'succeeded' : 'failed';
      await recordAttempt(h.database.db, row.id, now + index, { statusCode: status === 'failed' ? 500 : 200, status });
    }
  });

  /** The plan lines of one recorded query. */
  async function plan(node: RootOperationNode): Promise<string[]> {
    const compiled = h.database.db.kysely.getExecutor().compileQuery(node, { queryId: 'explain' });
    const kysely = h.database.db.kysely;
    if (engine === 'sqlite') {
      const rows = await kysely.executeQuery<{ detail: string }>({
        ...compiled,
        sql: `explain query plan ${compiled.sql}`,
      });
      return rows.rows.map((row) => row.detail);
    }
    return kysely.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>({ ...compiled, sql: `explain ${compiled.sql}` });
      return rows.rows.map((row) => row['QUERY PLAN']);
    });
  }

  async function expectIndexedReads(run: () => Promise<unknown>): Promise<void> {
    recorder.nodes.length = 0;
    await run();
    // Built queries, and reads written in SQL (a ranking the database does, e.g. the overview's p95).
    const isRead = (node: RootOperationNode): boolean =>
      node.kind === 'SelectQueryNode' ||
      (node.kind === 'RawNode' &&
        /^\s*select\b/i.test(h.database.db.kysely.getExecutor().compileQuery(node, { queryId: 'read' }).sql));
    const selects = recorder.nodes.filter(isRead);
    expect(selects.length).toBeGreaterThan(0);
    for (const node of selects) {
      const lines = await plan(node);
      const text = lines.join('\n');
      if (engine === 'sqlite')
        expect(
          lines.filter((line) => HISTORY_TABLES.test(line)),
          text,
        ).toEqual([]);
      else expect(text).not.toMatch(/Seq Scan on (deliveries|events|delivery_attempts)\b/);
    }
  }

  it('the overview, subscription health and the /metrics gauges', async () => {
    const overview = new OverviewStore(db);
    const now = h.clock.now();
    await expectIndexedReads(() => overview.counts());
    await expectIndexedReads(() => overview.queue());
    await expectIndexedReads(() => overview.hours(hourStart(now) - 23 * HOUR_MS));
    await expectIndexedReads(() => overview.p95Latency(now - 24 * HOUR_MS, 5000));
    await expectIndexedReads(() => overview.health());
  });

  it('the admin and partner delivery lists, with and without filters and cursors', async () => {
    const store = new DeliveryQueryStore(db, subscriptionsIn);
    const [first] = await new DeliveryQueryStore(h.database.db, subscriptionsIn).list({}, 1);
    if (first === undefined) throw new Error('expected a delivery');
    const after = { id: first.id, created_at: Number(first.created_at) };
    const filters: DeliveryFilter[] = [
      {},
      { status: 'failed' },
      { status: 'succeeded' },
      { status: 'pending' },
      { clientRef },
      { clientRef, status: 'failed' },
      { subscriptionId: subscriptions[0] },
      { subscriptionId: subscriptions[0], clientRef, status: 'pending' },
      { event: 'list.updated' },
      { event: 'list.updated', status: 'succeeded', createdFrom: 0, createdBefore: h.clock.now() + 1 },
    ];
    for (const filter of filters) {
      await expectIndexedReads(() => store.list(filter, 50));
      await expectIndexedReads(() => store.list(filter, 50, after));
    }
  });

  it('walks a subscription down its own index, and its pending rows down the queue', async () => {
    const store = new DeliveryQueryStore(db, subscriptionsIn);
    const [subscriptionId] = subscriptions;
    // SQLite's plans are fixed by the query's shape; PostgreSQL picks among fitting indexes by its statistics.
    const cases: [DeliveryFilter, RegExp][] =
      engine === 'sqlite'
        ? [
            [{ subscriptionId }, /SEARCH d USING COVERING INDEX deliveries_subscription \(subscription_id=\?\)/],
            [
              { subscriptionId, status: 'failed' },
              /COVERING INDEX deliveries_subscription_failed \(subscription_id=\?\)/,
            ],
            [{ subscriptionId, status: 'succeeded' }, /USING INDEX deliveries_subscription \(subscription_id=\?\)/],
            [{ clientRef, status: 'pending' }, /SCAN d USING INDEX deliveries_due_(first|retry)/],
          ]
        : [
            [{ subscriptionId }, /(using|on) deliveries_subscription\b/],
            [{ subscriptionId, status: 'failed' }, /(using|on) deliveries_subscription_failed\b/],
            [{ subscriptionId, status: 'succeeded' }, /(using|on) deliveries_(subscription|finished)\b/],
            [{ clientRef, status: 'pending' }, /(using|on) deliveries_due_(first|retry)\b/],
          ];
    for (const [filter, walk] of cases) {
      recorder.nodes.length = 0;
      await store.list(filter, 50);
      const selects = recorder.nodes.filter((node) => node.kind === 'SelectQueryNode');
      const plans = (await Promise.all(selects.map(plan))).flat().join('\n');
      expect(plans, JSON.stringify(filter)).toMatch(walk);
    }
  });

  it('lists the same rows as a plain newest-first query would, across pages', async () => {
    const store = new DeliveryQueryStore(h.database.db, subscriptionsIn);
    const everything = await h.database.db.kysely
      .selectFrom('deliveries')
      .select(['id', 'status', 'subscription_id'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    const filters: [DeliveryFilter, (row: { status: string; subscription_id: string }) => boolean][] = [
      [{}, () => true],
      [{ status: 'failed' }, (row) => row.status === 'failed'],
      [{ clientRef, status: 'pending' }, (row) => row.status === 'pending'],
      [{ subscriptionId: subscriptions[1] }, (row) => row.subscription_id === subscriptions[1]],
      [
        { subscriptionId: subscriptions[0], status: 'failed' },
        (row) => row.subscription_id === subscriptions[0] && row.status === 'failed',
      ],
      [
        { subscriptionId: subscriptions[1], status: 'succeeded' },
        (row) => row.subscription_id === subscriptions[1] && row.status === 'succeeded',
      ],
      [{ clientRef }, () => true],
    ];
    for (const [filter, keep] of filters) {
      const seen: string[] = [];
      let after: { id: string; created_at: number } | undefined;
      for (;;) {
        const page = await store.list(filter, 2, after);
        seen.push(...page.slice(0, 2).map((row) => row.id));
        const last = page[1];
        if (page.length <= 2 || last === undefined) break;
        after = { id: last.id, created_at: Number(last.created_at) };
      }
      expect(seen).toEqual(everything.filter(keep).map((row) => row.id));
    }
  });
});
