/**
 * On the server's side: every section of the console and the portal has an address the
 * server answers with the page (so a reload or a shared link opens that section), while any other path
 * under those pages, and every unknown API path, is still a problem+json 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_HTML } from '../../src/pages/console-page.js';
import { PORTAL_HTML } from '../../src/portal/page.js';
import { createHarness, type Harness } from '../support/harness.js';

describe('the pages answer their sections’ addresses', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite');
  });
  afterAll(async () => h.close());

  it.each([
    ['/dashboard/overview', DASHBOARD_HTML],
    ['/dashboard/clients', DASHBOARD_HTML],
    ['/dashboard/lists', DASHBOARD_HTML],
    ['/dashboard/lists/0f3c2a9be1d84c6f9a0b7c1d2e3f4a5b', DASHBOARD_HTML],
    ['/dashboard/offers?ean=9789001891442', DASHBOARD_HTML],
    ['/dashboard/subscriptions?client=cli_x', DASHBOARD_HTML],
    ['/dashboard/deliveries', DASHBOARD_HTML],
    ['/dashboard/deliveries/dlv_7Qm2kX9pLr4TzB0cW8nVa1y', DASHBOARD_HTML],
    ['/dashboard/storage', DASHBOARD_HTML],
    ['/portal/credentials', PORTAL_HTML],
    ['/portal/subscriptions', PORTAL_HTML],
    ['/portal/deliveries', PORTAL_HTML],
    ['/portal/deliveries/dlv_7Qm2kX9pLr4TzB0cW8nVa1y', PORTAL_HTML],
  ])('GET %s is the page, with the pages’ security headers', async (url, html) => {
    const response = await h.anonymous().get(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toBe(html);
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['x-frame-options']).toBe('DENY');
    // The browser revalidates the same page cheaply, whichever section's address it came by.
    const again = await h.anonymous().get(url, { headers: { 'if-none-match': String(response.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it.each([
    ['/dashboard/nowhere', 'GET /dashboard/nowhere does not exist'],
    ['/dashboard/api/nothing', 'GET /dashboard/api/nothing does not exist'],
    ['/dashboard/deliveries/dlv_1/attempts', 'GET /dashboard/deliveries/dlv_1/attempts does not exist'],
    ['/dashboard/deliveries/%3Cscript%3E', 'GET /dashboard/deliveries/%3Cscript%3E does not exist'],
    ['/portal/api/nothing', 'GET /portal/api/nothing does not exist'],
    ['/portal/settings', 'GET /portal/settings does not exist'],
    ['/api/admin/v1/nothing', 'GET /api/admin/v1/nothing does not exist'],
    ['/api/v1/nothing', 'GET /api/v1/nothing does not exist'],
  ])('GET %s is still a problem+json 404', async (url, detail) => {
    const response = await h.anonymous().get(url);
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toMatchObject({ status: 404, code: 'route-not-found', detail });
  });

  it('the API and the pages’ own files keep their answers', async () => {
    expect((await h.anonymous().get('/dashboard/api/session')).json()).toMatchObject({ signedIn: false });
    expect((await h.anonymous().get('/dashboard/app.js')).headers['content-type']).toBe(
      'text/javascript; charset=utf-8',
    );
    expect((await h.anonymous().get('/portal/app.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await h.anonymous().get('/portal/api/session')).json()).toEqual({ signedIn: false });
    expect((await h.anonymous().get('/api/admin/v1/deliveries')).statusCode).toBe(401);
  });
});
