import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { useSharedHarness } from '../support/use-harness.js';

// JSON bodies are validated without type coercion; query strings still are coerced.
describeEachEngine('strict JSON bodies', (engine) => {
  // One instance for the block: every write is refused, so no test leaves a row for another to read.
  const h = useSharedHarness(engine);

  it.each([
    [{ ean: '9789001891442', price: '12.50', condition: 'good' }, '/price'],
    [{ ean: '9789001891442', price: true, condition: 'good' }, '/price'],
    [{ ean: '9789001891442', price: 12.5, condition: ['good'] }, '/condition'],
    [{ ean: '9789001891442', price: 12.5, condition: 'good', remarks: 5 }, '/remarks'],
  ])('refuses %j instead of coercing it, and stores nothing', async (payload, path) => {
    const response = await h.asAdmin().post('/api/admin/v1/offers', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('validation-failed');
    expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
    expect(await h.database.db.kysely.selectFrom('offers').selectAll().execute()).toEqual([]);
  });

  it('still coerces query strings (limit=2 is a number)', async () => {
    const response = await h.asAdmin().get('/api/admin/v1/offers?limit=2');
    expect(response.statusCode).toBe(200);
  });
});
