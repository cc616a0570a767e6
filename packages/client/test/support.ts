/**
 * Test helpers for the SDK: a real Shelfmark (the project's harness) listening on 127.0.0.1, with every
 * request counted at the server's socket, and a client made through the admin API.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../../../src/config.js';
import type { Engine } from '../../../src/db/database.js';
import { createHarness, type Harness } from '../../../test/support/harness.js';

export interface Served {
  h: Harness;
  url: string;
  /** Every request the server received over the socket: method, path (no query), status. */
  seen: { method: string; path: string; url: string; status: number }[];
  count(method: string, path: string | RegExp): number;
  admin(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
  ): Promise<{ statusCode: number; json<T = unknown>(): T; body: string }>;
  newClient(
    name?: string,
    scopes?: string[],
  ): Promise<{ id: string; clientId: string; clientSecret: string; webhookSecret: string }>;
}

export async function serve(engine: Engine, overrides: Partial<Config> = {}): Promise<Served> {
  const h = await createHarness(engine, overrides);
  const url = await h.listen();
  const seen: Served['seen'] = [];
  h.app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const entry = {
      method: request.method ?? '',
      url: request.url ?? '',
      path: (request.url ?? '').split('?')[0] ?? '',
      status: 0,
    };
    seen.push(entry);
    response.on('finish', () => {
      entry.status = response.statusCode;
    });
  });
  const admin: Served['admin'] = (method, path, payload) =>
    h.app.inject({
      method,
      url: `/api/admin/v1${path}`,
      headers: h.admin,
      ...(payload === undefined ? {} : { payload }),
    });
  return {
    h,
    url,
    seen,
    count: (method, path) =>
      seen.filter(
        (entry) => entry.method === method && (typeof path === 'string' ? entry.path === path : path.test(entry.path)),
      ).length,
    admin,
    newClient: async (name = 'SDK shop', scopes) => {
      const created = await admin('POST', '/clients', { name, ...(scopes === undefined ? {} : { scopes }) });
      if (created.statusCode !== 201) throw new Error(`client creation failed: ${created.body}`);
      return created.json();
    },
  };
}

/** A valid EAN-13 for a 12-digit body (the GS1 mod-10 check digit appended). */
export function ean13(body: string): string {
  let sum = 0;
  for (let i = body.length - 1, weight = 3; i >= 0; i--, weight = 4 - weight) sum += (body.charCodeAt(i) - 48) * weight;
  return `${body}${(10 - (sum % 10)) % 10}`;
}
