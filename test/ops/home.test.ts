/** GET / names the service and links its entry points; JSON clients get the links as data. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { createHarness, type Harness } from '../support/harness.js';

describeEachEngine('GET /', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => h.close());

  it('a browser gets a page naming Shelfmark and linking docs, console, portal, OpenAPI and health', async () => {
    const response = await h.anonymous().get('/', { headers: { accept: 'text/html,*/*' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.body).toContain('<title>Shelfmark</title>');
    const links = [...response.body.matchAll(/href="(\/[^"]*)"/g)].map((match) => match[1]);
    expect(links).toEqual([
      '/dashboard/app.css',
      '/docs',
      '/openapi.json',
      '/portal',
      '/dashboard',
      '/healthz',
      '/readyz',
    ]);
    for (const link of links) {
      expect((await h.anonymous().get(link ?? '')).statusCode, link).toBe(200);
    }
  });

  it('Accept: application/json gets the same links as JSON', async () => {
    const response = await h.anonymous().get('/', { headers: { accept: 'application/json' } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      service: 'Shelfmark',
      links: {
        'API reference': '/docs',
        'OpenAPI document': '/openapi.json',
        'Partner portal': '/portal',
        'Operator console': '/dashboard',
        Liveness: '/healthz',
        Readiness: '/readyz',
      },
    });
  });

  it('is not part of the API document', async () => {
    const doc = (await h.anonymous().get('/openapi.json')).json<{
      paths: Record<string, unknown>;
    }>();
    expect(doc.paths['/']).toBeUndefined();
  });

  it('/favicon.ico answers with the bookmark icon, cached for a day', async () => {
    const icon = await h.anonymous().get('/favicon.ico');
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['cache-control']).toBe('public, max-age=86400');
    expect(icon.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="32" height="32"/);
  });
});
