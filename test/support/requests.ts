/**
 * Requests as the tests speak of them: who asks (a client's bearer token, the admin, nobody), then the
 * method, the URL and the body, e.g. `h.as(shop).get('/api/v1/offers', { query: { eans } })` or
 * `h.asAdmin().post('/api/admin/v1/schools', { name: 'HU' })`. In-process, through `app.inject`; the
 * answer is inject's own (statusCode, headers, body, json()). Tests about the transport itself
 * (headers, content types, malformed bodies, methods, CORS) call `app.inject` directly instead.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/main/app.js';

export type Reply = LightMyRequestResponse;
export type Headers = Record<string, string>;

export interface RequestOptions {
  /** Query parameters, encoded by inject (a URL may also carry its own query string). */
  query?: Record<string, string>;
  /** More headers; they win over the identity's (e.g. another authorization). */
  headers?: Headers;
}

/** A JSON body (an object or an array); a string goes as it is. */
export type Body = object | string;

export type Method = 'GET' | 'HEAD' | 'DELETE' | 'POST' | 'PUT' | 'PATCH';

export interface Requester {
  /** Any method, for tests that go through a table of routes. */
  request(method: Method, url: string, body?: Body, options?: RequestOptions): Promise<Reply>;
  get(url: string, options?: RequestOptions): Promise<Reply>;
  head(url: string, options?: RequestOptions): Promise<Reply>;
  delete(url: string, options?: RequestOptions): Promise<Reply>;
  post(url: string, body?: Body, options?: RequestOptions): Promise<Reply>;
  put(url: string, body?: Body, options?: RequestOptions): Promise<Reply>;
  patch(url: string, body?: Body, options?: RequestOptions): Promise<Reply>;
}

/** Someone with a bearer token: a client from createClientWithToken, or the token itself. */
export type Bearer = { bearer: Headers } | string;

export const bearerHeaders = (who: Bearer): Headers =>
  typeof who === 'string' ? { authorization: `Bearer ${who}` } : who.bearer;

/** Requests to `app` that carry `identity` (authorization or cookie headers; {} for nobody). */
export function requester(app: App, identity: Headers): Requester {
  const send = (method: Method, url: string, body: Body | undefined, options: RequestOptions = {}): Promise<Reply> => {
    const request: InjectOptions = { method, url, headers: { ...identity, ...options.headers } };
    if (options.query !== undefined) request.query = options.query;
    if (body !== undefined) request.payload = body;
    return app.inject(request);
  };
  return {
    request: send,
    get: (url, options) => send('GET', url, undefined, options),
    head: (url, options) => send('HEAD', url, undefined, options),
    delete: (url, options) => send('DELETE', url, undefined, options),
    post: (url, body, options) => send('POST', url, body, options),
    put: (url, body, options) => send('PUT', url, body, options),
    patch: (url, body, options) => send('PATCH', url, body, options),
  };
}
