/**
 * A database with months of history, as the history scenario and its load runs use it: a fresh
 * database set up through the service's API (a client, its subscriptions to the receiver, a partner
 * portal session), the service stopped, then the history written in SQL (history-seed.ts).
 */
import { copyFileSync } from 'node:fs';
import { databaseBytes, type SqlRunner, sqliteFile, withRunner } from './history-db.js';
import { type HistoryShape, type SeededHistory, seedHistory } from './history-seed.js';
import {
  accessToken,
  admin,
  type BenchClient,
  call,
  createClient,
  type Database,
  type Engine,
  freshDatabase,
  type Server,
  startServer,
} from './shelfmark.js';

/** Subscriptions the history is delivered to (of one client), one delivery in FAIL_EVERY failing, over DAYS. */
export const SUBSCRIPTIONS = 10;
export const FAIL_EVERY = 50;
export const DAYS = 180;

/**
 * The servers of the history runs never prune by themselves (the worker role's pruner would start a
 * minute after start): the bench prunes when it means to, with `shelfmark prune`.
 */
export const NO_PRUNER: Record<string, string> = { PRUNE_INTERVAL_SECONDS: '0' };

/** What the reads need: made once on the fresh database, still valid after a restart (all of it is in the database). */
export interface ReadSetup {
  client: BenchClient & { id: string };
  /** The school.created subscriptions the history is delivered to. */
  subscriptionIds: string[];
  /** A school.modified subscription: the latency probe of the load runs. */
  probeSubscriptionId: string;
  /** The partner portal's session cookie for the client. */
  portalCookie: string;
}

export async function setUpReads(server: Server, hookUrl: string, subscriptions: number): Promise<ReadSetup> {
  const client = (await createClient(server, ['webhooks:manage'])) as BenchClient & { id: string };
  const token = await accessToken(server, client);
  const subscribe = async (event: string, tag: string): Promise<string> =>
    (
      await call<{ id: string }>(`${server.url}/api/lml/v1/subscriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: { notificationUrl: `${hookUrl}?s=${tag}`, event },
      })
    ).id;
  const subscriptionIds: string[] = [];
  for (let i = 0; i < subscriptions; i++) subscriptionIds.push(await subscribe('school.created', String(i)));
  const probeSubscriptionId = await subscribe('school.modified', 'modified');
  return { client, subscriptionIds, probeSubscriptionId, portalCookie: await portalSession(server, client.id) };
}

/** Signs the client in to the partner portal as a partner would: a one-time link from the operator, redeemed. */
async function portalSession(server: Server, clientRef: string): Promise<string> {
  const link = await admin<{ path: string }>(server, `/clients/${clientRef}/portal-link`, 'POST');
  const token = link.path.slice(link.path.indexOf('#') + 1);
  const response = await fetch(`${server.url}/portal/api/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
    signal: AbortSignal.timeout(15_000),
  });
  if (response.status !== 200) throw new Error(`portal sign-in answered ${response.status}: ${await response.text()}`);
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('shelfmark_portal='));
  if (cookie === undefined) throw new Error('portal sign-in set no shelfmark_portal cookie');
  return cookie.slice(0, cookie.indexOf(';'));
}

export const historyShape = (deliveries: number, setup: ReadSetup): HistoryShape => ({
  events: Math.max(1, Math.round(deliveries / setup.subscriptionIds.length)),
  subscriptionIds: setup.subscriptionIds,
  days: DAYS,
  failEvery: FAIL_EVERY,
  now: Date.now(),
  tag: Math.floor(Math.random() * 2 ** 31),
});

export interface HistoryDatabase {
  db: Database;
  setup: ReadSetup;
  /** The database's size before the history was written (the service stopped). */
  freshBytes: number;
  seeded: SeededHistory;
}

/**
 * A fresh database, set up through a server that is then stopped, and `deliveries` of history written
 * into it. `onFresh` runs while that server still runs on the fresh database (the fresh reads).
 */
export async function seededDatabase(
  engine: Engine,
  hookUrl: string,
  deliveries: number,
  onFresh?: (server: Server, setup: ReadSetup) => Promise<void>,
): Promise<HistoryDatabase> {
  const db = await freshDatabase(engine);
  try {
    const server = await startServer(db, { env: NO_PRUNER });
    let setup: ReadSetup;
    try {
      setup = await setUpReads(server, hookUrl, SUBSCRIPTIONS);
      await onFresh?.(server, setup);
    } finally {
      await server.stop();
    }
    const freshBytes = await databaseBytes(db);
    const seeded = await withRunner(db, (runner: SqlRunner) => seedHistory(runner, historyShape(deliveries, setup)));
    return { db, setup, freshBytes, seeded };
  } catch (error) {
    await db.drop();
    throw error;
  }
}

/** A copy of a seeded SQLite database in a fresh folder (faster than seeding again; the service must be stopped). */
export async function copySqlite(from: HistoryDatabase): Promise<HistoryDatabase> {
  const db = await freshDatabase('sqlite');
  copyFileSync(sqliteFile(from.db.url), sqliteFile(db.url));
  return { ...from, db };
}
