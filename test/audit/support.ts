/**
 * Shared helpers of the audit tests: the records as the API shows them, a partner's portal session and
 * its subscription made through the partner API, the rows as stored.
 */
import { expect } from 'vitest';
import type { AuditRecord } from '../../src/audit/canonical.js';
import { createClientWithToken, type Harness } from '../support/harness.js';
import type { Requester } from '../support/requests.js';

/** Every record, oldest first (chain order), through the export. */
export async function allRecords(h: Harness, query: Record<string, string> = {}): Promise<AuditRecord[]> {
  const response = await h.asAdmin().get('/api/admin/v1/audit', { query: { ...query, format: 'ndjson' } });
  expect(response.statusCode).toBe(200);
  return response.body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditRecord);
}

/** The newest record. */
export async function lastRecord(h: Harness): Promise<AuditRecord> {
  const records = await allRecords(h);
  const last = records.at(-1);
  if (last === undefined) throw new Error('no audit record');
  return last;
}

/** Every stored audit row as text (to search for secrets), and the chain's head row. */
export async function storedText(h: Harness): Promise<string> {
  const rows = await h.database.db.kysely.selectFrom('audit_records').selectAll().execute();
  const head = await h.database.db.kysely.selectFrom('audit_chain').selectAll().execute();
  return JSON.stringify([rows, head]);
}

/** Signs the client in to the partner portal; requests then carry its cookie and CSRF token. */
export async function portalSession(h: Harness, clientRef: string): Promise<Requester & { cookie: string }> {
  const link = await h.asAdmin().post(`/api/admin/v1/clients/${clientRef}/portal-link`);
  expect(link.statusCode).toBe(201);
  const token = link.json<{ path: string }>().path.split('#')[1] ?? '';
  const signIn = await h.anonymous().post('/portal/api/sign-in', { token });
  expect(signIn.statusCode).toBe(200);
  const cookie = String(signIn.headers['set-cookie']).split(';')[0] ?? '';
  const csrf = signIn.json<{ csrfToken: string }>().csrfToken;
  const { requester } = await import('../support/requests.js');
  return { ...requester(h.app, { cookie, 'x-csrf-token': csrf }), cookie };
}

/** A new partner with webhooks:manage that registers one subscription through the partner API. */
export async function partnerWithSubscription(
  h: Harness,
  name: string,
  subscription: { notificationUrl: string; event: string },
): Promise<{ shop: Awaited<ReturnType<typeof createClientWithToken>>; subscription: string }> {
  const shop = await createClientWithToken(h, name, ['webhooks:manage']);
  const created = await h.as(shop).post('/api/lml/v1/subscriptions', subscription);
  expect(created.statusCode).toBe(201);
  return { shop, subscription: created.json<{ id: string }>().id };
}

export const HASH = expect.stringMatching(/^[0-9a-f]{64}$/);
export const AUDIT_ID = expect.stringMatching(/^aud_[0-9A-Za-z]{21}$/);
export const ADMIN_TOKEN_ACTOR = { type: 'admin-token', id: null, name: 'admin token' };
