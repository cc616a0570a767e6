/**
 * The audit log records every kind of change with its actor, origin and the fields that changed
 * (exact bodies): the admin token, a partner through the portal and the partner API, the CLI, and the
 * system (a subscription disabled by delivery, a prune). Nothing that changes nothing is recorded.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { GENESIS_HASH } from '../../src/audit/canonical.js';
import { DAY_MS } from '../../src/retention/policy.js';
import { addFailedDelivery, addSubscription, deliverOnce, startReceiver } from '../delivery/support.js';
import { cli, cliEnvironment } from '../support/cli.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import {
  ADMIN_TOKEN_ACTOR,
  AUDIT_ID,
  allRecords,
  HASH,
  lastRecord,
  partnerWithSubscription,
  portalSession,
} from './support.js';

const AT = '2026-09-01T08:00:00.000Z';
const origin = { ip: '127.0.0.1', userAgent: 'lightMyRequest' };

describeEachEngine('audit: records', (engine) => {
  // A database file, so the in-process CLI opens the same SQLite database.
  const h = useHarness(engine, { config: { webhookAllowPrivate: true }, options: { file: true } });

  it("records a client's life through the admin API, each record chained to the one before", async () => {
    const created = await h
      .asAdmin()
      .post('/api/admin/v1/clients', { name: 'Boekhandel Noord', scopes: ['offers:read'] });
    const { id } = created.json<{ id: string }>();
    const reset = await h.asAdmin().post(`/api/admin/v1/clients/${id}/secret`);
    h.clock.advance(60_000);
    await h.asAdmin().post(`/api/admin/v1/clients/${id}/webhook-secret`);
    await h.asAdmin().delete(`/api/admin/v1/clients/${id}`);
    await h.asAdmin().delete(`/api/admin/v1/clients/${id}`); // revoked already: nothing changes, nothing recorded

    const records = await allRecords(h);
    const common = { actor: ADMIN_TOKEN_ACTOR, role: 'admin', ...origin, target: { type: 'client', id } };
    expect(records).toEqual([
      {
        id: AUDIT_ID,
        at: AT,
        requestId: created.headers['x-request-id'],
        ...common,
        action: 'client.created',
        changes: {
          name: { before: null, after: 'Boekhandel Noord' },
          scopes: { before: null, after: ['offers:read'] },
          status: { before: null, after: 'active' },
        },
        prevHash: GENESIS_HASH,
        hash: HASH,
      },
      {
        id: AUDIT_ID,
        at: AT,
        requestId: reset.headers['x-request-id'],
        ...common,
        action: 'client.secret.reset',
        changes: {
          clientSecret: { before: null, after: 'rotated' },
          tokensValidAfter: { before: AT, after: AT },
        },
        prevHash: records[0]?.hash,
        hash: HASH,
      },
      {
        id: AUDIT_ID,
        at: '2026-09-01T08:01:00.000Z',
        requestId: expect.any(String),
        ...common,
        action: 'client.webhook-secret.rotated',
        changes: {
          webhookSecret: { before: null, after: 'rotated' },
          previousSecretValidUntil: { before: null, after: '2026-09-02T08:01:00.000Z' },
        },
        prevHash: records[1]?.hash,
        hash: HASH,
      },
      {
        id: AUDIT_ID,
        at: '2026-09-01T08:01:00.000Z',
        requestId: expect.any(String),
        ...common,
        action: 'client.revoked',
        changes: {
          status: { before: 'active', after: 'revoked' },
          subscriptionsEnded: { before: null, after: 0 },
          deliveriesCancelled: { before: null, after: 0 },
          portalSessionsEnded: { before: null, after: 0 },
          portalLinksVoided: { before: null, after: 0 },
        },
        prevHash: records[2]?.hash,
        hash: HASH,
      },
    ]);
    expect(new Set(records.map((record) => record.hash)).size).toBe(4);
  });

  it('records a partner resetting its own secret in the portal, and its subscription through the partner API', async () => {
    const shop = await createClientWithToken(h, 'Shop', ['webhooks:manage']);
    const portal = await portalSession(h, shop.id);
    const reset = await portal.post('/portal/api/secret');
    expect(reset.statusCode).toBe(200);
    expect(await lastRecord(h)).toEqual({
      id: AUDIT_ID,
      at: AT,
      requestId: reset.headers['x-request-id'],
      actor: { type: 'partner', id: shop.id, name: null },
      role: null,
      ...origin,
      action: 'client.secret.reset',
      target: { type: 'client', id: shop.id },
      changes: { clientSecret: { before: null, after: 'rotated' }, tokensValidAfter: { before: AT, after: AT } },
      prevHash: HASH,
      hash: HASH,
    });

    const { shop: fresh, subscription: subscriptionId } = await partnerWithSubscription(h, 'Shop 2', {
      notificationUrl: 'https://127.0.0.1:9/hook',
      event: 'list.updated',
    });
    const record = await lastRecord(h);
    expect(record).toMatchObject({
      actor: { type: 'partner', id: fresh.id, name: null },
      role: null,
      action: 'subscription.created',
      target: { type: 'subscription', id: subscriptionId },
      changes: {
        client: { before: null, after: fresh.id },
        notificationUrl: { before: null, after: 'https://127.0.0.1:9/hook' },
        event: { before: null, after: 'list.updated' },
        status: { before: null, after: 'active' },
      },
    });
    expect(Object.keys(record.changes).sort()).toEqual(['client', 'event', 'notificationUrl', 'status']);
    // The same registration again is an idempotent repeat: nothing new.
    await h
      .as(fresh)
      .post('/api/lml/v1/subscriptions', { notificationUrl: 'https://127.0.0.1:9/hook', event: 'list.updated' });
    expect((await lastRecord(h)).id).toBe(record.id);
  });

  it('records the CLI as the admin token run by an OS user, without a request', async () => {
    const restore = cliEnvironment(h, ADMIN_TOKEN);
    try {
      const run = await cli(['clients', 'create', 'From the shell']);
      expect(run.code).toBe(0);
    } finally {
      restore();
    }
    const record = await lastRecord(h);
    expect(record).toEqual({
      id: AUDIT_ID,
      at: expect.any(String),
      requestId: null,
      actor: { type: 'admin-token', id: 'cli', name: expect.stringMatching(/^cli \(.+\)$/) },
      role: 'admin',
      ip: null,
      userAgent: 'shelfmark-cli',
      action: 'client.created',
      target: { type: 'client', id: expect.stringMatching(/^cli_/) },
      changes: {
        name: { before: null, after: 'From the shell' },
        scopes: { before: null, after: expect.any(Array) },
        status: { before: null, after: 'active' },
      },
      prevHash: GENESIS_HASH,
      hash: HASH,
    });
  });

  it('records `npx shelfmark prune` as the operator who ran it', async () => {
    // The CLI reads the wall clock: a record made 401 days before it.
    h.clock.set(Date.now() - 401 * DAY_MS);
    await h.asAdmin().post('/api/admin/v1/schools', { name: 'Old school', type: 'VO' });
    const restore = cliEnvironment(h, ADMIN_TOKEN);
    try {
      expect((await cli(['prune', '--json'])).code).toBe(0);
    } finally {
      restore();
    }
    expect(await lastRecord(h)).toMatchObject({
      actor: { type: 'admin-token', id: 'cli' },
      action: 'retention.pruned',
      changes: { removed: { before: null, after: { audit_records: 1 } } },
    });
  });

  it('records an offer import by the CLI once per batch that changed something, named by its file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'audit-import-')), 'offers.csv');
    writeFileSync(file, 'ean,price,condition\n9789001891442,12.50,good\n9789001891442,10.00,acceptable\n');
    const restore = cliEnvironment(h, ADMIN_TOKEN);
    try {
      expect((await cli(['offers', 'import', file])).code).toBe(0);
      expect((await cli(['offers', 'import', file])).code).toBe(0); // the same file again changes nothing
    } finally {
      restore();
    }
    const records = await allRecords(h);
    expect(records.map((record) => record.action)).toEqual(['offers.imported']);
    expect(records[0]).toMatchObject({
      actor: { type: 'admin-token', id: 'cli' },
      target: { type: 'import', id: 'offers.csv' },
      changes: {
        rows: { before: null, after: '1-2 of 2' },
        created: { before: null, after: 2 },
        updated: { before: null, after: 0 },
      },
    });
  });

  it('records a subscription that delivery disabled (410 Gone) as the system, in the completion', async () => {
    const receiver = await startReceiver(() => ({ status: 410 }));
    try {
      const shop = await createClientWithToken(h, 'Gone shop');
      const subscriptionId = await addSubscription(h.database.db, shop.id, receiver.url, h.clock.now());
      await addFailedDelivery(h.database.db, subscriptionId, h.clock.now(), { status: 'pending', completed_at: null });
      await deliverOnce(h);
      expect(await lastRecord(h)).toEqual({
        id: AUDIT_ID,
        at: AT,
        requestId: null,
        actor: { type: 'system', id: null, name: null },
        role: null,
        ip: null,
        userAgent: null,
        action: 'subscription.disabled',
        target: { type: 'subscription', id: subscriptionId },
        changes: {
          status: { before: 'active', after: 'disabled' },
          disabledReason: { before: null, after: expect.stringContaining('410') },
        },
        prevHash: HASH,
        hash: HASH,
      });
    } finally {
      await receiver.close();
    }
  });

  it('a prune removes records older than AUDIT_RETENTION_DAYS from the start, anchors the rest and is recorded by the system', async () => {
    await h.asAdmin().post('/api/admin/v1/schools', { name: 'Old school', type: 'VO' });
    const old = await allRecords(h);
    h.clock.advance(401 * DAY_MS);
    await h.asAdmin().post('/api/admin/v1/schools', { name: 'New school', type: 'VO' });
    const outcome = await h.services.retention.prune();
    expect(outcome.status).toBe('pruned');
    const records = await allRecords(h);
    expect(records.map((record) => record.action)).toEqual(['school.created', 'retention.pruned']);
    expect(records[1]).toEqual({
      id: AUDIT_ID,
      at: expect.any(String),
      requestId: null,
      actor: { type: 'system', id: null, name: null },
      role: null,
      ip: null,
      userAgent: null,
      action: 'retention.pruned',
      target: { type: 'retention', id: 'prune' },
      changes: {
        removed: { before: null, after: expect.objectContaining({ audit_records: old.length }) },
        anchor: { before: null, after: { seq: old.length, hash: old.at(-1)?.hash } },
      },
      prevHash: records[0]?.hash,
      hash: HASH,
    });
    expect(records[0]?.prevHash).toBe(old.at(-1)?.hash);
    const restore = cliEnvironment(h, ADMIN_TOKEN);
    try {
      const verify = await cli(['audit', 'verify'], true);
      expect(verify).toEqual({ code: 0, stdout: 'chain intact, 2 records\n', stderr: '' });
    } finally {
      restore();
    }
  });
});
