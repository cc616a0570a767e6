/**
 * Database outage: a PostgreSQL cluster of the test's own is stopped for 10 s while the compiled
 * server takes reads and writes, then started again. Meanwhile every answer is a 200/201 or a 503
 * problem (never a 500) and /readyz fails; afterwards the same process recovers without a restart, every
 * committed change has its event and delivery, and the worker delivers them by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/database.js';
import { type Receiver, startReceiver } from '../delivery/support.js';
import { ADMIN_TOKEN, basic } from '../support/harness.js';
import {
  type PrivatePostgres,
  postgresBinDir,
  privatePostgresRequired,
  startPrivatePostgres,
} from '../support/private-postgres.js';
import { ensureBuilt, type ServerProcess, startServer } from '../support/process.js';
import { until } from '../support/until.js';
import { bearer, SCALE } from './scale.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

interface Answer {
  phase: 'before' | 'outage' | 'after';
  what: string;
  status: number;
  contentType: string;
  code?: string;
}

describe.skipIf(postgresBinDir === undefined && !privatePostgresRequired)(
  'database outage (private PostgreSQL cluster)',
  () => {
    let pgc: PrivatePostgres;
    let receiver: Receiver;
    let server: ServerProcess;

    beforeAll(async () => {
      ensureBuilt();
      pgc = await startPrivatePostgres();
      receiver = await startReceiver();
    }, 120_000);
    afterAll(async () => {
      await server?.kill();
      await receiver?.close();
      pgc?.destroy();
    });

    it('answers 503 problems and fails /readyz while PostgreSQL is down, then recovers without a restart and loses nothing', async () => {
      server = startServer(pgc.url, {
        WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1',
        RATE_LIMIT_RATE: '100000',
      });
      const base = await server.ready;
      const pid = server.child.pid;

      const created = await fetch(`${base}/api/admin/v1/clients`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name: 'Outage shop' }),
      });
      const client = (await created.json()) as { clientId: string; clientSecret: string };
      const { access_token: token } = (await (
        await fetch(`${base}/api/auth/token`, {
          headers: { authorization: basic(client.clientId, client.clientSecret) },
        })
      ).json()) as {
        access_token: string;
      };
      const subscribed = await fetch(`${base}/api/lml/v1/subscriptions`, {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: JSON.stringify({ notificationUrl: receiver.url, event: 'school.created' }),
      });
      expect(subscribed.status).toBe(201);

      let phase: Answer['phase'] = 'before';
      let running = true;
      const answers: Answer[] = [];
      const committed: string[] = [];
      const record = async (what: string, response: Response | Error): Promise<unknown> => {
        // A refused connection means the process died: recorded as status 0, which fails the test.
        if (response instanceof Error) {
          answers.push({ phase, what, status: 0, contentType: String(response.cause ?? response.message) });
          await new Promise((r) => setTimeout(r, 100));
          return {};
        }
        const contentType = response.headers.get('content-type') ?? '';
        const body = (await response.json()) as { code?: string; identifier?: string };
        answers.push({
          phase,
          what,
          status: response.status,
          contentType,
          ...(body.code === undefined ? {} : { code: body.code }),
        });
        return body;
      };
      const writer = async (): Promise<void> => {
        for (let i = 0; running; i++) {
          const response = await fetch(`${base}/api/admin/v1/schools`, {
            method: 'POST',
            headers: admin,
            body: JSON.stringify({ name: `School ${i}`, type: 'VO' }),
          }).catch((e: Error) => e);
          const body = (await record('write', response)) as { identifier?: string };
          if (!(response instanceof Error) && response.status === 201 && body.identifier !== undefined)
            committed.push(body.identifier);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      const reader = async (): Promise<void> => {
        while (running) {
          await record(
            'read',
            await fetch(`${base}/api/v1/offers?eans=9780194837125`, { headers: bearer(token) }).catch((e: Error) => e),
          );
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      const ready = async (): Promise<void> => {
        while (running) {
          await record('readyz', await fetch(`${base}/readyz`).catch((e: Error) => e));
          await new Promise((r) => setTimeout(r, 200));
        }
      };
      const load = Promise.all([writer(), reader(), ready()]);

      await new Promise((r) => setTimeout(r, 1500));
      phase = 'outage';
      pgc.stop();
      const outageStarted = Date.now();
      await new Promise((r) => setTimeout(r, SCALE.outageMs));
      pgc.start();
      phase = 'after';
      const outageMs = Date.now() - outageStarted;
      const died = (): string =>
        `/readyz to recover; server exit ${server.child.exitCode}, output:\n${server.output().slice(-3000)}`;
      await until(
        () => answers.some((a) => a.phase === 'after' && a.what === 'readyz' && a.status === 200),
        died,
        30_000,
      );
      await until(
        () => answers.some((a) => a.phase === 'after' && a.what === 'write' && a.status === 201),
        'a write to succeed again',
        30_000,
      );
      await new Promise((r) => setTimeout(r, 1000));
      running = false;
      await load;

      // Never a 500; every refusal a 503 problem; the outage was seen by readers, writers and /readyz.
      const statuses = new Set(answers.map((a) => a.status));
      expect([...statuses].filter((s) => ![200, 201, 503].includes(s))).toEqual([]);
      for (const answer of answers.filter((a) => a.status === 503 && a.what !== 'readyz')) {
        expect(answer.contentType).toBe('application/problem+json; charset=utf-8');
        expect(answer.code).toBe('unavailable');
      }
      const during = answers.filter((a) => a.phase === 'outage');
      expect(during.filter((a) => a.what === 'readyz' && a.status === 503).length).toBeGreaterThan(0);
      expect(during.filter((a) => a.what === 'read' && a.status === 503).length).toBeGreaterThan(0);
      expect(during.filter((a) => a.what === 'write' && a.status === 503).length).toBeGreaterThan(0);
      // The same process recovered: no restart.
      expect(server.child.pid).toBe(pid);
      expect(server.child.exitCode).toBeNull();

      // Nothing committed lost its event or delivery; the worker resumed by itself and delivered all.
      const db = await connectDatabase(pgc.url);
      try {
        const schools = await db.kysely.selectFrom('schools').select('identifier').execute();
        const events = await db.kysely.selectFrom('events').select(['id', 'payload']).execute();
        const deliveries = await db.kysely.selectFrom('deliveries').select(['id', 'event_id']).execute();
        const eventIdentifiers = new Set(
          events.map((event) => (JSON.parse(event.payload) as { identifier: string }).identifier),
        );
        for (const { identifier } of schools) expect(eventIdentifiers.has(identifier)).toBe(true);
        for (const identifier of committed)
          expect(schools.some((school) => school.identifier === identifier)).toBe(true);
        expect(deliveries).toHaveLength(events.length);
        const delivered = (): Set<string> =>
          new Set(receiver.received.map((request) => (JSON.parse(request.body) as { identifier: string }).identifier));
        await until(
          () => schools.every(({ identifier }) => delivered().has(identifier)),
          () => `every school delivered (${delivered().size}/${schools.length})`,
          60_000,
        );
        await until(
          async () =>
            (await db.kysely.selectFrom('deliveries').select('id').where('status', '!=', 'succeeded').execute())
              .length === 0,
          'every delivery recorded as succeeded',
          30_000,
        );
        const attempts = await db.kysely.selectFrom('delivery_attempts').select('delivery_id').execute();
        expect(new Set(attempts.map((a) => a.delivery_id)).size).toBe(deliveries.length);
        console.log(
          `[db outage] ${outageMs} ms down; ${answers.length} answers (${during.length} during the outage, ${during.filter((a) => a.status === 503).length} of them 503), ` +
            `0 x 500; ${committed.length} writes acknowledged, ${schools.length} committed, all ${deliveries.length} deliveries succeeded`,
        );
      } finally {
        await db.close();
      }
    }, 120_000);
  },
);
