import { Script } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { createHarness, type Harness } from '../support/harness.js';

describeEachEngine('operator dashboard', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => h.close());

  const get = (url: string, headers: Record<string, string> = {}) => h.anonymous().get(url, { headers });

  it('serves the page with a strict CSP and no inline script or style', async () => {
    const page = await get('/dashboard');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('<script src="/dashboard/app.js" defer></script>');
    expect(page.body).not.toMatch(/<script>|<style|\sstyle=|\son[a-z]+=/i);
    // Trailing slash works too.
    expect((await get('/dashboard/')).statusCode).toBe(200);
  });

  it('serves its script and stylesheet from this origin, with no external references', async () => {
    const script = await get('/dashboard/app.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const css = await get('/dashboard/app.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    for (const body of [script.body, css.body, (await get('/dashboard')).body]) expect(body).not.toMatch(/https?:\/\//);
  });

  it('the script parses and never renders through HTML sinks', async () => {
    const { body } = await get('/dashboard/app.js');
    expect(() => new Script(body, { filename: 'app.js' })).not.toThrow();
    expect(body).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/);
    // The admin token is exchanged for an HttpOnly session cookie: the script never stores it anywhere.
    expect(body).not.toMatch(/localStorage|sessionStorage|document\.cookie/);
  });

  it('answers conditional requests with 304', async () => {
    const first = await get('/dashboard/app.js');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    const again = await get('/dashboard/app.js', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('the page is not behind the admin token (the API it calls is)', async () => {
    expect((await get('/dashboard')).statusCode).toBe(200);
    expect((await get('/api/admin/v1/clients')).statusCode).toBe(401);
  });
});
