/**
 * The harness every test of a block gets afresh: `const h = useHarness(engine)` registers the
 * beforeEach that builds it (and, with `client`, a client with a token, `h.client`) and the
 * afterEach that closes it. `h` reads through to the current test's harness, so a test body writes
 * `h.app`, `h.clock`, `h.asAdmin()` as with a harness of its own.
 */
import { afterEach, beforeEach, onTestFinished } from 'vitest';
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
