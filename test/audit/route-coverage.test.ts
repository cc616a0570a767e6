/**
 * Every state-changing route of the operator (admin), the partner portal and the partner API declares
 * the audit actions it records (`config.audit`, from the catalogue), and calling each one records
 * exactly what it declares: a walk over the registered routes, then one call of each (both engines).
 * A route that is added without a declaration, or without a call here, fails the first test.
 */
import { expect, it } from 'vitest';
import { isAuditAction } from '../../src/audit/catalogue.js';
import { changesState, isBearer, type RouteBehaviour } from '../../src/http/route-config.js';
import { routeCatalog } from '../../src/observability/instrument.js';
import { addFailedDelivery, startReceiver } from '../delivery/support.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, type Harness } from '../support/harness.js';
import type { Reply } from '../support/requests.js';
import { useHarness } from '../support/use-harness.js';
import { allRecords, portalSession } from './support.js';

/** Declared, exercised by their own suites: operators need a sign-in at the identity provider (test/operators). */
const EXERCISED_ELSEWHERE = ['POST /api/admin/v1/operators/:sub/disable', 'POST /api/admin/v1/operators/:sub/enable'];
/** Declared `[]`: ending a browser session changes no audited state. */
const RECORDS_NOTHING = ['POST /dashboard/api/sign-out', 'POST /portal/api/sign-out'];

const audited = (config: RouteBehaviour): boolean =>
  config.auth === 'admin' || config.auth === 'portal' || isBearer(config.auth);

function declaredRoutes(h: Harness): Map<string, readonly string[] | undefined> {
  const routes = new Map<string, readonly string[] | undefined>();
  for (const route of routeCatalog(h.app))
    if (changesState(route) && audited(route.config)) {
      const audit = route.config.audit;
      routes.set(`${route.method} ${route.url}`, audit === undefined ? undefined : [audit].flat());
    }
  return routes;
}

/** Pending, attempted once, waiting for its next attempt in a minute: what "send now" acts on. */
const waiting = (h: Harness) => ({
  status: 'pending',
  completed_at: null,
  attempt_count: 1,
  next_attempt_at: h.clock.now() + 60_000,
});

describeEachEngine('audit: every state-changing route records what it declares', (engine) => {
  const h = useHarness(engine, { config: { webhookAllowPrivate: true } });

  it('declares its actions, all from the catalogue', async () => {
    const routes = declaredRoutes(h);
    expect(routes.size).toBeGreaterThan(35);
    const undeclared = [...routes].filter(([, audit]) => audit === undefined).map(([key]) => key);
    expect(undeclared).toEqual([]);
    const unknown = [...routes.values()].flatMap((audit) => audit ?? []).filter((action) => !isAuditAction(action));
    expect(unknown).toEqual([]);
    expect(
      [...routes]
        .filter(([, audit]) => audit?.length === 0)
        .map(([key]) => key)
        .sort(),
    ).toEqual(RECORDS_NOTHING);
  });

  it('records, for a call of each, the actions it declares (and nothing for a sign-out)', async () => {
    const receiver = await startReceiver();
    try {
      const db = h.database.db;
      const admin = h.asAdmin();
      const partner = await createClientWithToken(h, 'Portal partner', ['webhooks:manage']);
      const api = await createClientWithToken(h, 'API partner', ['webhooks:manage']);
      const portal = await portalSession(h, partner.id);
      const since = { since: '2026-01-01T00:00:00Z' };
      const ids: Record<string, string> = {};
      const id = (reply: Reply, key: string, field = 'id'): Reply => {
        ids[key] = String(reply.json<Record<string, unknown>>()[field]);
        return reply;
      };
      const failed = async (subscription: string, set = {}) =>
        addFailedDelivery(db, ids[subscription] ?? '', h.clock.now(), set);

      const calls: [string, () => Promise<Reply>][] = [
        [
          'POST /api/admin/v1/clients',
          async () => id(await admin.post('/api/admin/v1/clients', { name: 'C' }), 'client'),
        ],
        ['POST /api/admin/v1/clients/:id/secret', () => admin.post(`/api/admin/v1/clients/${ids.client}/secret`)],
        [
          'POST /api/admin/v1/clients/:id/webhook-secret',
          () => admin.post(`/api/admin/v1/clients/${ids.client}/webhook-secret`),
        ],
        [
          'POST /api/admin/v1/clients/:id/portal-link',
          () => admin.post(`/api/admin/v1/clients/${ids.client}/portal-link`),
        ],
        [
          'POST /api/admin/v1/schools',
          async () => id(await admin.post('/api/admin/v1/schools', { name: 'S', type: 'VO' }), 'school', 'identifier'),
        ],
        [
          'PATCH /api/admin/v1/schools/:identifier',
          () => admin.patch(`/api/admin/v1/schools/${ids.school}`, { name: 'S2' }),
        ],
        [
          'POST /api/admin/v1/lists',
          async () =>
            id(await admin.post('/api/admin/v1/lists', { school: ids.school, name: 'L' }), 'list', 'identifier'),
        ],
        ['PATCH /api/admin/v1/lists/:identifier', () => admin.patch(`/api/admin/v1/lists/${ids.list}`, { name: 'L2' })],
        [
          'POST /api/admin/v1/lists/:identifier/status',
          () => admin.post(`/api/admin/v1/lists/${ids.list}/status`, { status: 'published' }),
        ],
        [
          'POST /api/admin/v1/offers',
          async () =>
            id(
              await admin.post('/api/admin/v1/offers', { ean: '9789001891442', price: 12.5, condition: 'good' }),
              'offer',
            ),
        ],
        ['PATCH /api/admin/v1/offers/:id', () => admin.patch(`/api/admin/v1/offers/${ids.offer}`, { price: 10 })],
        ['DELETE /api/admin/v1/offers/:id', () => admin.delete(`/api/admin/v1/offers/${ids.offer}`)],
        [
          'POST /api/admin/v1/subscriptions',
          async () =>
            id(
              await admin.post('/api/admin/v1/subscriptions', {
                clientId: api.id,
                notificationUrl: `${receiver.url}/admin`,
                event: 'list.updated',
              }),
              'adminSub',
            ),
        ],
        [
          'POST /api/admin/v1/subscriptions/:id/enable',
          async () => {
            await db.kysely
              .updateTable('subscriptions')
              .set({ status: 'disabled' })
              .where('id', '=', ids.adminSub ?? '')
              .execute();
            return admin.post(`/api/admin/v1/subscriptions/${ids.adminSub}/enable`);
          },
        ],
        [
          'POST /api/admin/v1/subscriptions/:id/recover-failed',
          () => admin.post(`/api/admin/v1/subscriptions/${ids.adminSub}/recover-failed`),
        ],
        [
          'POST /api/admin/v1/subscriptions/:id/recover',
          () => admin.post(`/api/admin/v1/subscriptions/${ids.adminSub}/recover`, since),
        ],
        [
          'POST /api/admin/v1/subscriptions/:id/replay',
          () => admin.post(`/api/admin/v1/subscriptions/${ids.adminSub}/replay`, { from: '2026-01-01T00:00:00Z' }),
        ],
        [
          'POST /api/admin/v1/deliveries/:id/retry',
          async () => admin.post(`/api/admin/v1/deliveries/${await failed('adminSub')}/retry`),
        ],
        [
          'POST /api/admin/v1/deliveries/:id/send-now',
          async () => admin.post(`/api/admin/v1/deliveries/${await failed('adminSub', waiting(h))}/send-now`),
        ],
        ['DELETE /api/admin/v1/clients/:id', () => admin.delete(`/api/admin/v1/clients/${ids.client}`)],

        ['POST /portal/api/secret', () => portal.post('/portal/api/secret')],
        ['POST /portal/api/webhook-secret', () => portal.post('/portal/api/webhook-secret')],
        [
          'POST /portal/api/subscriptions',
          async () =>
            id(
              await portal.post('/portal/api/subscriptions', {
                notificationUrl: `${receiver.url}/p`,
                event: 'list.updated',
              }),
              'portalSub',
            ),
        ],
        [
          'POST /portal/api/subscriptions/:id/ping',
          () => portal.post(`/portal/api/subscriptions/${ids.portalSub}/ping`),
        ],
        [
          'POST /portal/api/subscriptions/:id/enable',
          () => portal.post(`/portal/api/subscriptions/${ids.portalSub}/enable`),
        ],
        [
          'POST /portal/api/subscriptions/:id/recover',
          () => portal.post(`/portal/api/subscriptions/${ids.portalSub}/recover`, since),
        ],
        [
          'POST /portal/api/subscriptions/:id/recover-failed',
          () => portal.post(`/portal/api/subscriptions/${ids.portalSub}/recover-failed`),
        ],
        [
          'POST /portal/api/subscriptions/:id/replay',
          () => portal.post(`/portal/api/subscriptions/${ids.portalSub}/replay`, { from: '2026-01-01T00:00:00Z' }),
        ],
        [
          'POST /portal/api/deliveries/:id/retry',
          async () => portal.post(`/portal/api/deliveries/${await failed('portalSub')}/retry`),
        ],
        [
          'POST /portal/api/deliveries/:id/send-now',
          async () => portal.post(`/portal/api/deliveries/${await failed('portalSub', waiting(h))}/send-now`),
        ],
        ['DELETE /portal/api/subscriptions/:id', () => portal.delete(`/portal/api/subscriptions/${ids.portalSub}`)],
        ['POST /portal/api/sign-out', () => portal.post('/portal/api/sign-out')],

        [
          'POST /api/lml/v1/subscriptions',
          async () =>
            id(
              await h
                .as(api)
                .post('/api/lml/v1/subscriptions', { notificationUrl: `${receiver.url}/api`, event: 'list.updated' }),
              'apiSub',
            ),
        ],
        [
          'POST /api/lml/v1/subscriptions/:id/ping',
          () => h.as(api).post(`/api/lml/v1/subscriptions/${ids.apiSub}/ping`),
        ],
        [
          'POST /api/lml/v1/subscriptions/:id/enable',
          () => h.as(api).post(`/api/lml/v1/subscriptions/${ids.apiSub}/enable`),
        ],
        [
          'POST /api/lml/v1/subscriptions/:id/replay',
          () => h.as(api).post(`/api/lml/v1/subscriptions/${ids.apiSub}/replay`, { from: '2026-01-01T00:00:00Z' }),
        ],
        ['POST /api/lml/v1/webhook-secret', () => h.as(api).post('/api/lml/v1/webhook-secret')],
        ['DELETE /api/lml/v1/subscriptions/:id', () => h.as(api).delete(`/api/lml/v1/subscriptions/${ids.apiSub}`)],
      ];

      const routes = declaredRoutes(h);
      expect(
        [...calls.map(([key]) => key), ...EXERCISED_ELSEWHERE, 'POST /dashboard/api/sign-out'].sort(),
        'every declared route is called here',
      ).toEqual([...routes.keys()].sort());

      for (const [key, call] of calls) {
        const before = (await allRecords(h)).length;
        const reply = await call();
        expect(reply.statusCode, `${key}: ${reply.body}`).toBeLessThan(300);
        const recorded = (await allRecords(h)).slice(before).map((record) => record.action);
        const declared = routes.get(key) ?? [];
        if (declared.length === 0) expect(recorded, key).toEqual([]);
        else {
          expect(recorded.length, `${key} records`).toBeGreaterThan(0);
          for (const action of recorded) expect(declared, `${key} recorded ${action}`).toContain(action);
        }
      }
    } finally {
      await receiver.close();
    }
  });
});
