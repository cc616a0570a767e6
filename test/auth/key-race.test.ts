/**
 * Two nodes (or two cluster children) may each create a signing key while the other has just read the
 * keys. A kid that is new to a node must verify even within its unknown-kid cooldown, while unknown
 * kids still reach the database at most once per cooldown.
 */
import { expect, it } from 'vitest';
import { SigningKeys } from '../../src/auth/signing-keys.js';
import { ManualClock } from '../../src/clock.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';

describeEachEngine('signing keys created by another node', (engine) => {
  const h = useHarness(engine);

  it('a key another node created a moment ago verifies at once on this one', async () => {
    const here = h.services.signingKeys;
    const ours = await here.active(); // creates this node's key and has just read the keys
    // Another node whose clock says our key is retired creates a key of its own now.
    const elsewhere = new SigningKeys(
      h.database.db.kysely,
      new ManualClock(h.clock.now() + 31 * 86_400_000),
      3_600_000,
    );
    const theirs = await elsewhere.active();
    expect(theirs.kid).not.toBe(ours.kid);
    expect(await here.verificationKey(theirs.kid)).toBeDefined();
  });

  it('forged kids share one database read per cooldown', async () => {
    const here = h.services.signingKeys;
    await here.active();
    let reads = 0;
    const original = h.database.db.kysely.selectFrom.bind(h.database.db.kysely);
    const spy = new Proxy(h.database.db.kysely, {
      get: (target, key) =>
        key === 'selectFrom'
          ? (...args: Parameters<typeof original>) => {
              reads++;
              return original(...args);
            }
          : Reflect.get(target, key),
    });
    const watched = new SigningKeys(spy, h.clock, 3_600_000);
    await watched.active();
    reads = 0;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => watched.verificationKey(`forged-${i}`)));
    expect(answers.every((answer) => answer === undefined)).toBe(true);
    expect(reads).toBe(1);
  });
});
