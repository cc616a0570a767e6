/**
 * A value outside an enum (a union of literals in the schema) is refused with one issue
 * naming the allowed values, never "must be equal to constant" once per literal; in the query, in a
 * JSON body, nested in an array; and the CLI's `deliveries list --status` the same.
 */
import { expect, it } from 'vitest';
import { cli, useCliEnvironment } from '../support/cli.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { useSharedHarness } from '../support/use-harness.js';

describeEachEngine('validation problems of enums', (engine) => {
  // One instance for the block: every request is refused, so no test leaves a row for another.
  const h = useSharedHarness(engine);

  it('a bad status in the query names the allowed values once', async () => {
    const response = await h.asAdmin().get('/api/admin/v1/deliveries?status=bogus');
    expect(response.statusCode).toBe(400);
    const body = response.json<{ detail: string; errors: unknown[] }>();
    expect(body.detail).toBe('querystring status must be one of "pending", "succeeded", "failed", "cancelled"');
    expect(body.errors).toEqual([
      {
        location: 'querystring',
        path: '/status',
        message: 'must be one of "pending", "succeeded", "failed", "cancelled"',
        allowed: ['pending', 'succeeded', 'failed', 'cancelled'],
      },
    ]);
    expect(response.body).not.toContain('must be equal to constant');
  });

  it("a bad enum nested in a JSON body's array is one issue naming the allowed values", async () => {
    const created = await h.asAdmin().post('/api/admin/v1/clients', { name: 'Shop', scopes: ['offers:read', 'nope'] });
    expect(created.statusCode).toBe(400);
    const body = created.json<{ detail: string; errors: { path: string; message: string; allowed?: string[] }[] }>();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]).toMatchObject({ path: '/scopes/1', allowed: expect.arrayContaining(['offers:read']) });
    expect(body.errors[0]?.message).toMatch(/^must be one of "/);
    expect(body.detail).toMatch(/^body scopes\.1 must be one of "/);
    expect(created.body).not.toContain('must be equal to constant');
  });

  it('other validation errors keep their wording', async () => {
    const response = await h.asAdmin().get('/api/admin/v1/deliveries?limit=0');
    expect(response.statusCode).toBe(400);
    expect(response.json<{ errors: { message: string }[] }>().errors[0]?.message).toBe('must be >= 1');
  });
});

describeEachEngine('deliveries list --status', (engine) => {
  const h = useSharedHarness(engine, { options: { file: true } });
  useCliEnvironment(h, ADMIN_TOKEN);

  it('`deliveries list --status bogus` exits 2 and lists the allowed values', async () => {
    const result = await cli(['deliveries', 'list', '--status', 'bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      '--status: expected one of pending, succeeded, failed, cancelled; got "bogus"\n' +
        'Usage: shelfmark deliveries list [--status pending|succeeded|failed|cancelled] [--subscription <id>] [--limit n] [--json]\n' +
        'More: shelfmark deliveries list --help\n',
    );
    expect(result.stdout).toBe('');
    const fine = await cli(['deliveries', 'list', '--status', 'failed', '--json']);
    expect(fine.code).toBe(0);
    expect(JSON.parse(fine.stdout)).toMatchObject({ data: [] });
  });
});
