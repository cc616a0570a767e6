/**
 * The operator console's sign-in (admin token → HttpOnly session cookie), CSRF on admin state
 * changes made with that cookie, security headers of the pages, and the overview figures.
 */
import { expect, it } from 'vitest';
import { addSubscription, emit, recordAttempt } from '../delivery/support.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

describeEachEngine('operator console', (engine) => {
  const h = useHarness(engine);

  async function signIn(): Promise<{ cookie: string; csrf: string }> {
    const response = await h.anonymous().post('/dashboard/api/session', { token: ADMIN_TOKEN });
    expect(response.statusCode).toBe(200);
    expect(String(response.headers['set-cookie'])).toMatch(
      /^shelfmark_console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    return {
      cookie: String(response.headers['set-cookie']).split(';')[0] ?? '',
      csrf: response.json<{ csrfToken: string }>().csrfToken,
    };
  }

  it('refuses a wrong admin token and sets no cookie', async () => {
    const response = await h.anonymous().post('/dashboard/api/session', { token: 'wrong-token-0123456789' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(await h.database.db.kysely.selectFrom('web_sessions').selectAll().execute()).toEqual([]);
  });

  it('reads the admin API with the cookie, and changes state only with the CSRF token', async () => {
    const { cookie, csrf } = await signIn();
    expect((await h.anonymous().get('/api/admin/v1/clients', { headers: { cookie } })).statusCode).toBe(200);

    const without = await h.anonymous().post('/api/admin/v1/clients', { name: 'Shop' }, { headers: { cookie } });
    expect(without.statusCode).toBe(403);
    expect(without.json()).toMatchObject({ code: 'csrf-rejected', status: 403 });
    const wrong = await h
      .anonymous()
      .post('/api/admin/v1/clients', { name: 'Shop' }, { headers: { cookie, 'x-csrf-token': `${csrf}x` } });
    expect(wrong.statusCode).toBe(403);
    expect(await h.database.db.kysely.selectFrom('clients').selectAll().execute()).toEqual([]);

    const created = await h
      .anonymous()
      .post('/api/admin/v1/clients', { name: 'Shop' }, { headers: { cookie, 'x-csrf-token': csrf } });
    expect(created.statusCode).toBe(201);
    // A portal session's cookie is not a console session.
    const forged = await h
      .anonymous()
      .get('/api/admin/v1/clients', { headers: { cookie: cookie.replace('shelfmark_console', 'shelfmark_portal') } });
    expect(forged.statusCode).toBe(401);

    expect(
      (await h.anonymous().post('/dashboard/api/sign-out', undefined, { headers: { cookie, 'x-csrf-token': csrf } }))
        .statusCode,
    ).toBe(204);
    expect((await h.anonymous().get('/api/admin/v1/clients', { headers: { cookie } })).statusCode).toBe(401);
  });

  it('serves both pages with CSP without unsafe-inline, frame and referrer protection', async () => {
    for (const url of ['/dashboard', '/portal', '/portal/sign-in', '/portal/app.js', '/dashboard/app.css']) {
      const page = await h.anonymous().get(url);
      expect(page.statusCode, url).toBe(200);
      const csp = String(page.headers['content-security-policy']);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      if (String(page.headers['content-type']).startsWith('text/html'))
        expect(page.body).not.toMatch(/<script>|<style|\sstyle=|\son[a-z]+=/i);
      expect(page.body).not.toMatch(/https?:\/\//);
    }
    const script = (await h.anonymous().get('/portal/app.js')).body;
    expect(script).not.toMatch(
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|localStorage|sessionStorage|document\.cookie/,
    );
  });

  it('computes the overview: counts, queue depth, failures, p95 latency and 24 hourly buckets', async () => {
    const shop = await createClientWithToken(h, 'Shop');
    const db = h.database.db;
    const sub = await addSubscription(db, shop.id, 'http://127.0.0.1:9/x', h.clock.now());
    await emit(db, h.clock.now(), 3);
    const rows = await db.kysely.selectFrom('deliveries').select('id').orderBy('id').execute();
    const now = h.clock.now();
    const [a, b] = rows;
    if (a === undefined || b === undefined) throw new Error('expected deliveries');
    // Through the worker's completion path, so the counters and the subscription's row are kept.
    // b fails once in the hour before, a succeeds 2 s after its commit, then b fails for good.
    await recordAttempt(db, b.id, now - 3_600_000 + 5, { statusCode: 500, status: 'pending', nextAttemptAt: now });
    await recordAttempt(db, a.id, now + 2000, { statusCode: 200, status: 'succeeded' });
    await recordAttempt(db, b.id, now + 4000, { statusCode: 500, status: 'failed' });
    h.clock.advance(10_000);
    const response = await h.asAdmin().get('/api/admin/v1/overview');
    expect(response.statusCode).toBe(200);
    const overview = response.json<{ attemptsPerHour: { hour: string; succeeded: number; failed: number }[] }>();
    expect(overview).toMatchObject({
      clients: 1,
      subscriptions: 1,
      publishedLists: 0,
      publishedOffers: 0,
      queueDepth: 1,
      failedAttempts24h: 2,
      failedDeliveries24h: 1,
      failedLast24h: 1,
      p95DeliveryLatencyMs: 2000,
    });
    expect(overview.attemptsPerHour).toHaveLength(24);
    expect(overview.attemptsPerHour.at(-1)).toEqual({ hour: '2026-09-01T08:00:00.000Z', succeeded: 1, failed: 1 });
    expect(overview.attemptsPerHour.at(-2)).toEqual({ hour: '2026-09-01T07:00:00.000Z', succeeded: 0, failed: 1 });
    expect(overview.attemptsPerHour.slice(0, -2).every((bucket) => bucket.succeeded === 0 && bucket.failed === 0)).toBe(
      true,
    );

    const health = await h.asAdmin().get('/api/admin/v1/subscription-health');
    expect(health.json()).toEqual({
      data: [
        {
          subscriptionId: sub,
          lastSuccessAt: '2026-09-01T08:00:02.000Z',
          consecutiveFailedAttempts: 1,
          consecutiveFailures: 1,
          failingSince: '2026-09-01T08:00:04.000Z',
        },
      ],
    });

    // An hour on, the same figures sit one bucket further back: the window follows the clock.
    h.clock.advance(3_600_000);
    const later = (await h.asAdmin().get('/api/admin/v1/overview')).json<{
      failedLast24h: number;
      attemptsPerHour: { hour: string; succeeded: number; failed: number }[];
    }>();
    expect(later.failedLast24h).toBe(1);
    expect(later.attemptsPerHour.at(-1)).toEqual({ hour: '2026-09-01T09:00:00.000Z', succeeded: 0, failed: 0 });
    expect(later.attemptsPerHour.at(-2)).toEqual({ hour: '2026-09-01T08:00:00.000Z', succeeded: 1, failed: 1 });
    expect(later.attemptsPerHour.at(-3)).toEqual({ hour: '2026-09-01T07:00:00.000Z', succeeded: 0, failed: 1 });

    // Retried by hand, the failed delivery is pending again: no longer counted as a failed delivery;
    // its failed attempts happened, so they still count (in the hour and in a row).
    const retry = await h.asAdmin().post(`/api/admin/v1/deliveries/${b.id}/retry`);
    expect(retry.statusCode).toBe(202);
    const retried = (await h.asAdmin().get('/api/admin/v1/overview')).json<{
      failedLast24h: number;
      queueDepth: number;
    }>();
    expect(retried).toMatchObject({ failedDeliveries24h: 0, failedAttempts24h: 2, failedLast24h: 0, queueDepth: 2 });
    const healthAfter = await h.asAdmin().get('/api/admin/v1/subscription-health');
    expect(healthAfter.json<{ data: unknown[] }>().data).toEqual([
      expect.objectContaining({ subscriptionId: sub, consecutiveFailedAttempts: 1, consecutiveFailures: 1 }),
    ]);
  });
});
