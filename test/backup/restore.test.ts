/**
 * Backup and restore on real data, with the compiled server in its own process, on both engines:
 * the server delivers webhooks to a loopback receiver while four writers create offers through the
 * admin API (each one transaction: the offer, its events, a delivery per subscription); `shelfmark
 * backup` runs meanwhile; the server stops; the backup is restored into an empty place (a new
 * directory; a new PostgreSQL database, with the real pg_dump and pg_restore) and a new server starts
 * on it. Every write acknowledged before the backup began is there, a token minted before the backup
 * still verifies (the signing keys are in the database), and the deliveries the backup holds as
 * pending are sent by the restored server. One subscription's receiver answers 500 until the backup
 * is taken, so pending deliveries exist whatever the timing.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/database.js';
import { type Receiver, startReceiver } from '../delivery/support.js';
import { freshDatabase, postgresAvailable, TEST_DATABASE_URL, withDatabase } from '../support/engines.js';
import { basic } from '../support/harness.js';
import { ensureBuilt, type ServerProcess, startServer } from '../support/process.js';
import { until } from '../support/until.js';
import { type Acked, admin, onPath, runProgram, shelfmark, startWriteLoad } from './support.js';

const WRITERS = 4;
/** Acknowledged writes before the backup is taken. */
const WRITES_BEFORE = 60;
const env = {
  // Every retry a second later, so a delivery pending in the backup is due soon after the restore.
  WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 40 }, () => '1').join(','),
  WEBHOOK_TIMEOUT_MS: '1000',
  RATE_LIMIT_RATE: '0',
};

/** Where the live database is, and how a backup of it is restored into an empty place. */
interface Deployment {
  url: string;
  backupFile: string;
  /** Restores the backup into a new, empty place and returns its DATABASE_URL. */
  restore(): Promise<string>;
  cleanup(): Promise<void>;
}

async function sqliteDeployment(): Promise<Deployment> {
  const root = mkdtempSync(join(tmpdir(), 'shelfmark-backup-'));
  mkdirSync(join(root, 'live'));
  mkdirSync(join(root, 'backups'));
  return {
    url: `sqlite:${join(root, 'live/shelfmark.sqlite')}`,
    backupFile: join(root, 'backups/shelfmark.sqlite'),
    restore: async () => {
      // The operator's restore: an empty directory, the backup copied in under the configured name.
      const restored = join(root, 'restored');
      mkdirSync(restored);
      expect(readdirSync(restored)).toEqual([]);
      copyFileSync(join(root, 'backups/shelfmark.sqlite'), join(restored, 'shelfmark.sqlite'));
      return `sqlite:${join(restored, 'shelfmark.sqlite')}`;
    },
    cleanup: async () => rmSync(root, { recursive: true, force: true }),
  };
}

const withSearchPath = (url: string, schema: string): string =>
  `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** The documented restore: pg_restore --clean --if-exists --single-transaction --no-owner (docs/operating/backup.md). */
async function pgRestore(dbname: string, file: string): Promise<void> {
  const ran = await runProgram(
    onPath('pg_restore') ?? 'pg_restore',
    ['--clean', '--if-exists', '--single-transaction', '--no-owner', `--dbname=${dbname}`, file],
    { PATH: process.env.PATH ?? '' },
  );
  expect(ran.code, ran.stderr).toBe(0);
}

async function postgresDeployment(): Promise<Deployment & { schema: string; inPlace(): Promise<number> }> {
  const live = await freshDatabase('postgres');
  const schema = String(
    (await live.db.kysely.selectNoFrom((eb) => eb.fn<string>('current_schema').as('schema')).executeTakeFirst())
      ?.schema,
  );
  const root = mkdtempSync(join(tmpdir(), 'shelfmark-backup-'));
  const restoredName = `shelfmark_restore_${randomBytes(6).toString('hex')}`;
  let created = false;
  const backupFile = join(root, 'shelfmark.dump');
  return {
    url: live.url,
    schema,
    backupFile,
    restore: async () => {
      // A fresh database; the archive creates the schema in it, under the same name.
      await adminQuery(`create database ${restoredName}`);
      created = true;
      const base = withDatabase(TEST_DATABASE_URL, restoredName);
      await pgRestore(base, backupFile);
      return withSearchPath(base, schema);
    },
    // Restoring in place over the live schema, which took writes after the backup: they are undone.
    inPlace: async () => {
      await pgRestore(live.url, backupFile);
      const row = await live.db.kysely
        .selectFrom('offers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    cleanup: async () => {
      if (created) await adminQuery(`drop database if exists ${restoredName} with (force)`);
      await live.drop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** What the restored database holds, read before the restored server starts. */
async function inspect(url: string) {
  const db = await connectDatabase(url);
  try {
    const offers = await db.kysely.selectFrom('offers').select(['id', 'identifier']).execute();
    const published = await db.kysely
      .selectFrom('events')
      .select(['id', 'identifier'])
      .where('name', '=', 'offer.published')
      .execute();
    const deliveries = await db.kysely
      .selectFrom('deliveries')
      .innerJoin('subscriptions', 'subscriptions.id', 'deliveries.subscription_id')
      .select(['deliveries.id', 'deliveries.event_id', 'deliveries.status', 'subscriptions.notification_url'])
      .execute();
    return { offers, published, deliveries };
  } finally {
    await db.close();
  }
}

async function statusesOf(url: string, ids: readonly string[]): Promise<Map<string, string>> {
  const db = await connectDatabase(url);
  try {
    const rows = await db.kysely.selectFrom('deliveries').select(['id', 'status']).where('id', 'in', ids).execute();
    return new Map(rows.map((row) => [row.id, row.status]));
  } finally {
    await db.close();
  }
}

const required = process.env.CI === 'true' || process.env.REQUIRE_POSTGRES === 'true';
const pgTools = onPath('pg_dump') !== undefined && onPath('pg_restore') !== undefined;
if ((!postgresAvailable || !pgTools) && !required)
  console.warn(
    `\n[shelfmark tests] ${!postgresAvailable ? `PostgreSQL at ${TEST_DATABASE_URL} is not reachable` : 'pg_dump/pg_restore are not on PATH'}: the PostgreSQL backup and restore test is SKIPPED. Set CI=true to require it.\n`,
  );

beforeAll(() => ensureBuilt(), 120_000);

for (const engine of ['sqlite', 'postgres'] as const) {
  const skip = engine === 'postgres' && (!postgresAvailable || !pgTools) && !required;
  describe.skipIf(skip)(`backup and restore under write load [${engine}]`, () => {
    const processes: ServerProcess[] = [];
    let receiver: Receiver | undefined;
    let deployment: Deployment | undefined;
    afterEach(async () => {
      for (const process of processes.splice(0)) await process.kill();
      await receiver?.close();
      await deployment?.cleanup();
    });

    it('keeps every acknowledged write, verifies old tokens and sends the pending deliveries after a restore', async () => {
      if (engine === 'postgres' && !pgTools)
        throw new Error('pg_dump and pg_restore are required (CI=true) but not on PATH');
      const pgDeployment = engine === 'postgres' ? await postgresDeployment() : undefined;
      deployment = pgDeployment ?? (await sqliteDeployment());
      let blocked = true;
      receiver = await startReceiver((request) => (blocked && request.url.endsWith('/blocked') ? { status: 500 } : {}));
      const hooks = receiver;

      const server = startServer(deployment.url, env);
      processes.push(server);
      const base = await server.ready;
      const client = (await (
        await fetch(`${base}/api/admin/v1/clients`, { method: 'POST', headers: admin, body: '{"name":"Backup shop"}' })
      ).json()) as { id: string; clientId: string; clientSecret: string };
      const minted = await fetch(`${base}/api/auth/token`, {
        headers: { authorization: basic(client.clientId, client.clientSecret) },
      });
      const token = ((await minted.json()) as { access_token: string }).access_token;
      const bearer = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      for (const path of ['ok', 'blocked']) {
        const subscribed = await fetch(`${base}/api/lml/v1/subscriptions`, {
          method: 'POST',
          headers: bearer,
          body: JSON.stringify({ notificationUrl: `${hooks.url}/${path}`, event: 'offer.published' }),
        });
        expect(subscribed.status).toBe(201);
      }

      // Writes flow, deliveries are being sent (and refused on /blocked); then the backup, still writing.
      const load = startWriteLoad(base, WRITERS);
      const sentTo = (path: string) => hooks.received.some((request) => request.url.endsWith(path));
      await until(
        () => load.acked.length >= WRITES_BEFORE && sentTo('/ok') && sentTo('/blocked'),
        () => `${WRITES_BEFORE} writes and deliveries to both subscriptions (${load.acked.length} writes)`,
        20_000,
      );
      const before: Acked[] = load.acked.slice();
      const began = Date.now();
      const ran = await shelfmark(['backup', deployment.backupFile], { DATABASE_URL: deployment.url });
      const ended = Date.now();
      await load.stop();
      expect(load.errors).toEqual([]);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toContain(`backup written: ${deployment.backupFile}`);
      const result = JSON.parse(ran.stdout) as {
        bytes: number;
        copySeconds: number;
        startedAt: string;
        migrations: number;
      };
      expect(result.bytes).toBe(statSync(deployment.backupFile).size);
      expect(result.migrations).toBeGreaterThan(0);
      const during = load.acked.filter((write) => write.at >= began && write.at <= ended).length;
      const copyFrom = Date.parse(result.startedAt);
      const duringCopy = load.acked.filter(
        (write) => write.at >= copyFrom && write.at <= copyFrom + result.copySeconds * 1000,
      ).length;
      // The service kept writing while the backup command ran.
      expect(during).toBeGreaterThan(0);
      expect(await server.stop()).toBe(0);
      blocked = false;
      const mark = hooks.received.length;

      const restoredUrl = await deployment.restore();
      const snapshot = await inspect(restoredUrl);
      const offerIds = new Set(snapshot.offers.map((offer) => offer.id));
      for (const write of before)
        expect(offerIds.has(write.id), `offer ${write.id} acknowledged before the backup`).toBe(true);
      // Nor can it hold a write sent after the command ended.
      for (const write of load.acked.filter((w) => w.sent > ended))
        expect(offerIds.has(write.id), `offer ${write.id} sent after the backup`).toBe(false);
      // One consistent moment: every offer with its offer.published event and its two deliveries, and nothing torn.
      expect(new Set(snapshot.published.map((event) => event.identifier))).toEqual(
        new Set(snapshot.offers.map((offer) => offer.identifier)),
      );
      const perEvent = new Map<string, number>();
      for (const delivery of snapshot.deliveries)
        perEvent.set(delivery.event_id, (perEvent.get(delivery.event_id) ?? 0) + 1);
      for (const event of snapshot.published) expect(perEvent.get(event.id)).toBe(2);
      const toBlocked = snapshot.deliveries.filter((delivery) => delivery.notification_url.endsWith('/blocked'));
      expect(toBlocked.length).toBe(snapshot.offers.length);
      expect(toBlocked.every((delivery) => delivery.status === 'pending')).toBe(true);
      const pending = snapshot.deliveries.filter((delivery) => delivery.status === 'pending').map((d) => d.id);

      const restored = startServer(restoredUrl, env);
      processes.push(restored);
      const restoredBase = await restored.ready;
      // The token minted before the backup: its signing key came back with the database.
      for (let i = 0; i < before.length; i += 100) {
        const batch = before.slice(i, i + 100);
        const response = await fetch(
          `${restoredBase}/api/v1/offers?eans=${batch.map((write) => write.ean).join(',')}`,
          {
            headers: { authorization: `Bearer ${token}` },
          },
        );
        expect(response.status).toBe(200);
        const served = new Set(((await response.json()) as { id: number }[]).map((offer) => offer.id));
        for (const write of batch)
          expect(served.has(write.id), `offer ${write.id} served after the restore`).toBe(true);
      }
      // And the client's secret (its hash) came back too.
      const again = await fetch(`${restoredBase}/api/auth/token`, {
        headers: { authorization: basic(client.clientId, client.clientSecret) },
      });
      expect(again.status).toBe(200);

      // Every delivery pending in the backup is sent by the restored server, and recorded as sent.
      const sentAfter = (): Set<string> =>
        new Set(hooks.received.slice(mark).map((request) => String(request.headers['webhook-id'])));
      await until(
        () => pending.every((id) => sentAfter().has(id)),
        () => `the ${pending.length} pending deliveries (${pending.filter((id) => sentAfter().has(id)).length} sent)`,
        20_000,
      );
      await until(
        async () => [...(await statusesOf(restoredUrl, pending)).values()].every((status) => status === 'succeeded'),
        'the pending deliveries recorded as succeeded',
        10_000,
      );
      expect(await restored.stop()).toBe(0);

      let undone = '';
      if (pgDeployment !== undefined) {
        // The other restore the page gives: in place, over the live schema (which took writes after the backup).
        expect(await pgDeployment.inPlace()).toBe(snapshot.offers.length);
        undone = `; restored in place too (${load.acked.length - snapshot.offers.length} later writes undone)`;
      }
      console.log(
        `[backup, ${engine}] ${before.length} writes acknowledged before the backup, ${during} while the command ran ` +
          `(${duringCopy} during its copy of ${result.copySeconds} s), ${load.acked.length} in all; the backup holds ` +
          `${snapshot.offers.length} offers and ${pending.length} pending deliveries, all sent by the restored server${undone}`,
      );
    }, 90_000);
  });
}
