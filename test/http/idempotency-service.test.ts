/** The Idempotency-Key rules on the real store (both engines): 5xx answers are forgotten, and a race has one winner. */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { IdempotencyService, requestHash } from '../../src/idempotency/service.js';
import { IdempotencyStore } from '../../src/idempotency/store.js';
import { Problem } from '../../src/problems/catalogue.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';

describeEachEngine('IdempotencyService', (engine) => {
  let database: TestDatabase;
  let service: IdempotencyService;
  const clock = new ManualClock(Date.UTC(2026, 8, 1));
  beforeEach(async () => {
    database = await freshDatabase(engine);
    service = new IdempotencyService(new IdempotencyStore(database.db.kysely), clock);
  });
  afterEach(async () => database.drop());

  const hash = requestHash('POST', '/api/admin/v1/offers', { ean: '9789001891442' });
  const rows = () => database.db.kysely.selectFrom('idempotency_keys').selectAll().execute();

  it('a 5xx answer is not remembered: the claim is released and the retry runs', async () => {
    expect(await service.begin('admin', 'k', hash)).toEqual({ kind: 'run' });
    await service.finish('admin', 'k', { statusCode: 503, headers: {}, body: '{}' });
    expect(await rows()).toEqual([]);
    expect(await service.begin('admin', 'k', hash)).toEqual({ kind: 'run' });
    await service.finish('admin', 'k', { statusCode: 201, headers: { location: '/x' }, body: '{"id":1}' });
    expect(await service.begin('admin', 'k', hash)).toEqual({
      kind: 'replay',
      answer: { statusCode: 201, headers: { location: '/x' }, body: '{"id":1}' },
    });
  });

  it('two requests racing with one key: exactly one runs, the other is told the key is in use', async () => {
    const outcomes = await Promise.allSettled([
      service.begin('client:a', 'race', hash),
      service.begin('client:a', 'race', hash),
    ]);
    const ran = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(ran).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.reason).toBeInstanceOf(Problem);
    expect((refused[0]?.reason as Problem | undefined)?.code).toBe('idempotency-key-in-use');
    expect(await rows()).toHaveLength(1);
  });

  it('expired rows are purged when keys are used', async () => {
    await service.begin('admin', 'old', hash);
    await service.finish('admin', 'old', { statusCode: 200, headers: {}, body: '{}' });
    clock.advance(25 * 3_600_000);
    await service.begin('admin', 'new', hash);
    expect((await rows()).map((row) => row.key)).toEqual(['new']);
  });
});
