/**
 * The harness every test of a block gets afresh: `const h = useHarness(engine)` registers the
 * beforeEach that builds it (and, with `client`, a client with a token, `h.client`) and the
 * afterEach that closes it. `h` reads through to the current test's harness, so a test body writes
 * `h.app`, `h.clock`, `h.asAdmin()` as with a harness of its own.
 */
import { afterAll, afterEach, beforeAll, beforeEach, onTestFinished } from 'vitest';
import type { Config } from '../../src/config.js';
import type { Engine } from '../../src/db/database.js';
import { createClientWithToken, createHarness, type Harness, type HarnessOptions, type TestClient } from './harness.js';

export interface UseHarness {
  /** Configuration overrides, as createHarness takes them. */
  config?: Partial<Config>;
  options?: HarnessOptions;
  /** Builds the harness another way (a suite's own kind, e.g. with a fake DNS); config and options are then unused. */
  create?: (engine: Engine) => Promise<Harness>;
}

export interface UseHarnessWithClient extends UseHarness {
  /** A client with a fresh token before each test: its name (default 'Test shop') and scopes. */
  client: true | { name?: string; scopes?: string[] };
}

export type HarnessWithClient = Harness & { readonly client: TestClient };

export function useHarness(engine: Engine, use: UseHarnessWithClient): HarnessWithClient;
export function useHarness(engine: Engine, use?: UseHarness): Harness;
export function useHarness(engine: Engine, use: UseHarness & { client?: UseHarnessWithClient['client'] } = {}) {
  let current: { harness: Harness; client: TestClient | undefined } | undefined;
  beforeEach(async () => {
    const harness = await (use.create?.(engine) ?? createHarness(engine, use.config, use.options));
    const wanted = use.client === true ? {} : use.client;
    const client = wanted === undefined ? undefined : await createClientWithToken(harness, wanted.name, wanted.scopes);
    current = { harness, client };
  });
  afterEach(async () => {
    const closing = current;
    current = undefined;
    await closing?.harness.close();
  });
  const now = (): Harness => {
    if (current === undefined) throw new Error('useHarness: the harness exists only while a test runs');
    return current.harness;
  };
  // Every read goes to the current test's harness, so a member added to Harness needs nothing here.
  return new Proxy({} as HarnessWithClient, {
    get: (_target, key) => {
      const harness = now();
      if (key !== 'client') return Reflect.get(harness, key);
      if (current?.client === undefined) throw new Error('useHarness: ask for { client } to get h.client');
      return current.client;
    },
  });
}

export interface UseSharedHarness extends UseHarness {
  /**
   * Puts back, before each test, what the block's tests read: e.g. empties the tables they count. A
   * test's rows must not reach another test's assertions. Without it nothing is reset: for blocks whose
   * tests write nothing another reads (refusals, requests of their own client).
   */
  reset?: (harness: Harness) => Promise<void>;
}

/**
 * One harness for every test of a block: built once (beforeAll) and closed after the last test, for
 * blocks whose tests only need an app and a database without the rows the others left. Before each test
 * the clock goes back to where it started, `reset` clears what the tests read, and, with `client`, a
 * client of the test's own is made (so each test has its own credentials and request quota). `h`
 * reads as with useHarness.
 */
export function useSharedHarness(engine: Engine, use: UseSharedHarness & UseHarnessWithClient): HarnessWithClient;
export function useSharedHarness(engine: Engine, use?: UseSharedHarness): Harness;
export function useSharedHarness(
  engine: Engine,
  use: UseSharedHarness & { client?: UseHarnessWithClient['client'] } = {},
): Harness {
  let shared: { harness: Harness; start: number } | undefined;
  let client: TestClient | undefined;
  beforeAll(async () => {
    const harness = await (use.create?.(engine) ?? createHarness(engine, use.config, use.options));
    shared = { harness, start: harness.clock.now() };
  });
  afterAll(async () => {
    const closing = shared;
    shared = undefined;
    await closing?.harness.close();
  });
  beforeEach(async () => {
    if (shared === undefined) throw new Error('useSharedHarness: the harness was not built');
    const { harness, start } = shared;
    harness.clock.set(start);
    await use.reset?.(harness);
    const wanted = use.client === true ? {} : use.client;
    client = wanted === undefined ? undefined : await createClientWithToken(harness, wanted.name, wanted.scopes);
  });
  afterEach(() => {
    client = undefined;
  });
  return new Proxy({} as HarnessWithClient, {
    get: (_target, key) => {
      if (shared === undefined) throw new Error('useSharedHarness: the harness exists only while the block runs');
      if (key !== 'client') return Reflect.get(shared.harness, key);
      if (client === undefined) throw new Error('useSharedHarness: ask for { client } to get h.client');
      return client;
    },
  });
}

/** A reset for useSharedHarness: deletes every row of these tables (and what cascades from them), in order. */
export const emptyTables =
  (...tables: ('subscriptions' | 'deliveries' | 'events' | 'clients')[]) =>
  async (harness: Harness): Promise<void> => {
    for (const table of tables) await harness.database.db.kysely.deleteFrom(table).execute();
  };

/** A harness of this test's own (another configuration than the block's), closed when the test finishes. */
export async function freshHarness(
  engine: Engine,
  config: Partial<Config> = {},
  options: HarnessOptions = {},
): Promise<Harness> {
  const harness = await createHarness(engine, config, options);
  onTestFinished(() => harness.close());
  return harness;
}
