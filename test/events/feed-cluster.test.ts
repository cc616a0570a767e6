/**
 * The event feed across nodes, as an operator runs them: three compiled servers (dist/main/server.js) on one
 * PostgreSQL schema. PostgreSQL only: SQLite's nodes are processes on one host with one writer at a time.
 *
 * - Order and completeness: three writers commit events concurrently through the three nodes, each
 *   transaction held open a random 0–150 ms before its commit (SHELFMARK_TEST_HOLD_EVENTS_MS), and this
 *   process holds transactions of its own open longer, half of them rolled back; two readers follow the
 *   feed with `wait` on two other nodes. Each saw every committed event exactly once, both in the same
 *   order, and never an uncommitted one.
 * - Long-poll: an event committed on node A wakes a reader waiting on node B (50 events).
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events as emit } from '../../src/events/emitters.js';
import { recordEvents } from '../../src/events/outbox.js';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../support/engines.js';
import { freePort } from '../support/free-port.js';
import { ADMIN_TOKEN, basic } from '../support/harness.js';
import { openTransaction } from '../support/open-transaction.js';
import { until } from '../support/until.js';

const root = join(import.meta.dirname, '..', '..');
const required = process.env.CI === 'true' || process.env.REQUIRE_POSTGRES === 'true';
if (!postgresAvailable && !required)
  console.warn('[feed-cluster] PostgreSQL not reachable: the cluster feed test is SKIPPED');
/** How long the writers write (the issue asks 20 s; CI runs it shorter). */
const WRITE_MS = Number(process.env.FEED_CLUSTER_WRITE_MS ?? 6000);

interface Node {
  url: string;
  child: ReturnType<typeof spawn>;
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
const hex = (n: number) => n.toString(16).padStart(32, '0');

describe.skipIf(!postgresAvailable && !required)('event feed on three nodes [postgres]', () => {
  let database: TestDatabase;
  const nodes: Node[] = [];
  let bearer: Record<string, string>;

  beforeAll(async () => {
    if (!existsSync(join(root, 'dist', 'main', 'server.js')))
      execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
    database = await freshDatabase('postgres');
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const child = spawn(process.execPath, [join(root, 'dist', 'main', 'server.js')], {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          HOST: '127.0.0.1',
          PORT: String(port),
          LOG_LEVEL: 'warn',
          SEED: 'none',
          DATABASE_URL: database.url,
          ADMIN_TOKEN,
          SHELFMARK_TEST_HOLD_EVENTS_MS: '150',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      nodes.push({ url: `http://127.0.0.1:${port}`, child });
    }
    for (const node of nodes)
      await until(
        async () => (await fetch(`${node.url}/healthz`).catch(() => undefined))?.ok === true,
        'a node up',
        60_000,
      );
    const created = await fetch(`${nodes[0]?.url}/api/admin/v1/clients`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Feed reader', scopes: ['lml:read'] }),
    });
    const client = (await created.json()) as { clientId: string; clientSecret: string };
    const token = (await (
      await fetch(`${nodes[1]?.url}/api/auth/token`, {
        headers: { authorization: basic(client.clientId, client.clientSecret) },
      })
    ).json()) as { access_token: string };
    bearer = { authorization: `Bearer ${token.access_token}` };
  }, 120_000);

  afterAll(async () => {
    for (const node of nodes) {
      if (node.child.exitCode !== null) continue;
      node.child.kill('SIGTERM');
      await once(node.child, 'exit');
    }
    await database?.drop();
  });

  const feed = async (node: Node, query: Record<string, string>) => {
    const response = await fetch(`${node.url}/api/lml/v1/events?${new URLSearchParams(query)}`, { headers: bearer });
    if (response.status !== 200) throw new Error(`feed on ${node.url}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { data: { id: string; identifier: string; cursor: string }[]; next: string };
  };
  const head = async (node: Node) => (await feed(node, { limit: '1000' })).next;
  const createSchool = async (node: Node, name: string) => {
    const response = await fetch(`${node.url}/api/admin/v1/schools`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name, type: 'VO' }),
    });
    if (response.status !== 201) throw new Error(`school on ${node.url}: ${response.status}`);
    return ((await response.json()) as { identifier: string }).identifier;
  };

  it('every reader sees every committed event once, in the same order, and never an uncommitted one', async () => {
    const [a, b, c] = nodes as [Node, Node, Node];
    let writing = true;
    const rolledBack: string[] = [];
    const writer = async (node: Node, tag: string) => {
      for (let i = 0; writing; i++) await createSchool(node, `${tag} ${i}`);
    };
    // Transactions of this process held open 100–400 ms, every other one rolled back.
    const holder = async () => {
      for (let i = 0; writing; i++) {
        const event = emit.schoolCreated(hex(1_000_000 + i));
        const open = await openTransaction(database.db.kysely, (trx) =>
          recordEvents(trx, database.db.dialect, Date.now(), [event]),
        );
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 300));
        if (i % 2 === 0) await open.commit();
        else {
          rolledBack.push(event.identifier);
          await open.rollback();
        }
      }
    };
    const reader = async (node: Node) => {
      const seen: string[] = [];
      let after: string | undefined;
      // Follows until the writers stopped and a long enough wait brought nothing new.
      for (let quiet = 0; writing || quiet < 2; ) {
        const page = await feed(node, { ...(after === undefined ? {} : { after }), limit: '50', wait: '1' });
        seen.push(...page.data.map((item) => item.id));
        quiet = page.data.length === 0 ? quiet + 1 : 0;
        after = page.next;
      }
      return seen;
    };
    const readers = [reader(b), reader(c)];
    const writers = [writer(a, 'A'), writer(b, 'B'), writer(c, 'C'), holder()];
    await new Promise((resolve) => setTimeout(resolve, WRITE_MS));
    writing = false;
    await Promise.all(writers);
    const [first, second] = (await Promise.all(readers)) as [string[], string[]];

    const committed = await database.db.kysely
      .selectFrom('events')
      .select(['id', 'identifier'])
      .where('name', '=', 'school.created')
      .execute();
    expect(committed.length).toBeGreaterThan(20);
    expect(new Set(first).size).toBe(first.length);
    expect(first).toEqual(second);
    expect([...first].sort()).toEqual(committed.map((row) => row.id).sort());
    const identifiers = new Set(committed.map((row) => row.identifier));
    for (const identifier of rolledBack) expect(identifiers.has(identifier)).toBe(false);
  }, 120_000);

  it('an event committed on node A wakes a reader waiting on node B (50 events)', async () => {
    const [a, b] = nodes as [Node, Node];
    const delays: number[] = [];
    let after = await head(b);
    for (let i = 0; i < 50; i++) {
      const waiting = feed(b, { after, wait: '10' });
      // The reader is held on node B before the write begins.
      await new Promise((resolve) => setTimeout(resolve, 30));
      let committedAt = 0;
      const written = createSchool(a, `Wake ${i}`).then((identifier) => {
        committedAt = Date.now();
        return identifier;
      });
      const page = await waiting;
      const answeredAt = Date.now();
      const identifier = await written;
      expect(page.data.map((item) => item.identifier)).toEqual([identifier]);
      // The write's answer can arrive after the reader's: then the wake-up took no time after the commit.
      delays.push(Math.max(0, answeredAt - committedAt));
      after = page.next;
    }
    delays.sort((x, y) => x - y);
    const p95 = delays[Math.ceil(delays.length * 0.95) - 1] as number;
    console.log(
      `[feed-cluster] cross-node wake-up after commit: p50 ${delays[24]} ms, p95 ${p95} ms, max ${delays.at(-1)} ms`,
    );
    // The design bound is 200 ms (p95); on a host shared with other tests this holds it to 2 s, and the
    // bench (feed scenario) measures it.
    expect(p95).toBeLessThanOrEqual(2000);
  }, 120_000);
});
