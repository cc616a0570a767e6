/** Numbers in query strings must be finite: "1e999" is a 400 naming the parameter, never a 500 (found by the fuzzer). */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useSharedHarness } from '../support/use-harness.js';

describeEachEngine('non-finite query numbers', (engine) => {
  // One instance for the block: the tests only send refused or read-only requests, each with a client of its own.
  const h = useSharedHarness(engine);

  it.each(['1e999', '-1e999', '1E400'])('limit=%s → 400 validation-failed on every paged collection', async (value) => {
    const client = await createClientWithToken(h);
    for (const [url, headers] of [
      ['/api/lml/v1/subscriptions', client.bearer],
      ['/api/lml/v1/schools', client.bearer],
      ['/api/lml/v1/lists', client.bearer],
      ['/api/admin/v1/offers', h.admin],
    ] as const) {
      const response = await h.anonymous().get(`${url}?limit=${value}`, { headers });
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toMatchObject({
        code: 'validation-failed',
        errors: [{ location: 'querystring', path: '/limit', message: 'must be a finite number' }],
      });
    }
  });

  it('ordinary numbers still pass and out-of-range ones keep their message', async () => {
    const client = await createClientWithToken(h);
    expect((await h.as(client).get('/api/lml/v1/schools?limit=5')).statusCode).toBe(200);
    const tooMany = await h.as(client).get('/api/lml/v1/schools?limit=1e3');
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json<{ detail: string }>().detail).toMatch(/querystring limit must be <= \d+/);
  });
});
