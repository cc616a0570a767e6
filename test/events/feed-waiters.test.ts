/**
 * The feed's waiters and the head look-ups of a node (feed-waiters.ts), with a counting store and fake
 * timers: a commit with a request waiting looks the head up at once; commits while nobody waits share
 * one look-up `lookUpAfterMs` later (on PostgreSQL that look-up stamps the positions); a request that
 * starts waiting meanwhile brings the look-up forward.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FeedStore } from '../../src/events/feed-store.js';
import { FeedWaiters } from '../../src/events/feed-waiters.js';
import { describeEachEngine } from '../support/engines.js';
import { until } from '../support/until.js';
import { useHarness } from '../support/use-harness.js';
import { createSchool } from './feed-support.js';

/** A store whose head moves when the test says so, counting its look-ups. */
function countingStore(): { store: FeedStore; lookUps: () => number; setHead: (head: number) => void } {
  let head = 0;
  let lookUps = 0;
  const store = {
    head: async () => {
      lookUps++;
      return head;
    },
  } as unknown as FeedStore;
  return { store, lookUps: () => lookUps, setHead: (next) => (head = next) };
}

const options = { maxWaitingPerClient: 10, pollMs: 60_000, lookUpAfterMs: 200 };

describe('feed waiters: head look-ups', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('while nobody waits, five commits share one look-up, made lookUpAfterMs after the first', async () => {
    const { store, lookUps } = countingStore();
    const waiters = new FeedWaiters(store, options);
    for (let i = 0; i < 5; i++) waiters.wake();
    await vi.advanceTimersByTimeAsync(199);
    expect(lookUps()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(lookUps()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(lookUps()).toBe(1);
    await waiters.close();
  });

  it('with a request waiting, a commit looks the head up at once and releases it', async () => {
    const { store, lookUps, setHead } = countingStore();
    const waiters = new FeedWaiters(store, options);
    const outcome = waiters.wait(0, 10_000);
    setHead(1);
    waiters.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(lookUps()).toBe(1);
    await expect(outcome).resolves.toBe('moved');
    await waiters.close();
  });

  it('a request that starts waiting while a look-up is put off brings it forward', async () => {
    const { store, lookUps, setHead } = countingStore();
    const waiters = new FeedWaiters(store, options);
    // The reader read head 0, then a commit (head 1) came before it started to wait.
    setHead(1);
    waiters.wake();
    const outcome = waiters.wait(0, 10_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(lookUps()).toBe(1);
    await expect(outcome).resolves.toBe('moved');
    // The put-off look-up was the one made: nothing more is due.
    await vi.advanceTimersByTimeAsync(1000);
    expect(lookUps()).toBe(1);
    await waiters.close();
  });

  it('closing drops a put-off look-up', async () => {
    const { store, lookUps } = countingStore();
    const waiters = new FeedWaiters(store, options);
    waiters.wake();
    await waiters.close();
    await vi.advanceTimersByTimeAsync(1000);
    expect(lookUps()).toBe(0);
  });
});

describeEachEngine('feed positions without a reader', (engine) => {
  const h = useHarness(engine);

  it(
    engine === 'postgres'
      ? 'events written while nobody reads the feed get their positions within a moment, in commit order'
      : 'SQLite positions events as they are written',
    async () => {
      const schools: string[] = [];
      for (const name of ['Alfa College', 'Beta Lyceum', 'Gamma School']) schools.push(await createSchool(h, name));
      const positions = async () => {
        const rows = await h.database.db.kysely.selectFrom('events').select(['identifier', 'seq']).execute();
        return schools.map((school) => rows.find((row) => row.identifier === school)?.seq ?? null);
      };
      if (engine === 'postgres')
        await until(async () => (await positions()).every((seq) => seq !== null), 'the events are stamped', 5000);
      expect((await positions()).map(Number)).toEqual([1, 2, 3]);
    },
  );
});
