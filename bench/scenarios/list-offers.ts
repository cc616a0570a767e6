/**
 * GET /api/v1/lists/{identifier}/offers for a published 50-item list (every item 4 published offers at
 * several prices and conditions), 50 connections, on SQLite — interleaved round by round with the plain
 * offers call for 10 EANs against the same server, so the ratio says what pricing a whole list costs.
 * Target: p99 ≤ 10 ms for the list.
 */
import { type LoadResult, load, ratios, spread } from '../lib/measure.js';
import { accessToken, admin, createClient, freshDatabase, pool, type Server, startServer } from '../lib/shelfmark.js';
import { type ScenarioResult, type Settings, target } from '../lib/types.js';
import { isbn, offersPath, seedOffers } from './offers.js';

const LIST_EANS = Array.from({ length: 50 }, (_, i) => isbn(400000 + i * 17));
const CONDITIONS = ['excellent', 'good', 'acceptable', 'good'];

/** A school and a published list of 50 EANs, 4 published offers each (3 mandatory items in 4). */
async function seedList(server: Server): Promise<string> {
  const school = await admin<{ identifier: string }>(server, '/schools', 'POST', { name: 'Bench Lyceum', type: 'VO' });
  const items = LIST_EANS.map((ean, i) => ({ ean, title: `Book ${i + 1}`, mandatory: i % 4 !== 3 }));
  const list = await admin<{ identifier: string }>(server, '/lists', 'POST', {
    school: school.identifier,
    name: 'Bench list',
    items,
  });
  await admin(server, `/lists/${list.identifier}/status`, 'POST', { status: 'published' });
  const offers = LIST_EANS.flatMap((ean, e) =>
    CONDITIONS.map((condition, o) => ({ ean, price: 4.5 + ((e * 5 + o * 11) % 40), condition, status: 'published' })),
  );
  await pool(offers, 8, async (offer) => {
    await admin(server, '/offers', 'POST', offer);
  });
  return list.identifier;
}

export async function listOffersScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const db = await freshDatabase('sqlite');
  let server: Server | undefined;
  const list: LoadResult[] = [];
  const plain: LoadResult[] = [];
  try {
    server = await startServer(db);
    const identifier = await seedList(server);
    await seedOffers(server);
    const token = await accessToken(server, await createClient(server, ['offers:read']));
    const headers = { authorization: `Bearer ${token}` };
    const listUrl = `${server.url}/api/v1/lists/${identifier}/offers`;
    const plainUrl = `${server.url}${offersPath}`;
    if (settings.warmupSeconds > 0) {
      await load({ url: listUrl, headers, seconds: settings.warmupSeconds });
      await load({ url: plainUrl, headers, seconds: settings.warmupSeconds });
    }
    for (let round = 0; round < settings.rounds; round++) {
      const a = await load({ url: listUrl, headers, seconds: settings.seconds });
      const b = await load({ url: plainUrl, headers, seconds: settings.seconds });
      if (a.non2xx > 0 || b.non2xx > 0) throw new Error(`list-offers: non-2xx answers ${a.non2xx} / ${b.non2xx}`);
      list.push(a);
      plain.push(b);
      log(
        `  round ${round + 1}: list of 50 ${a.requestsPerSecond} req/s p99 ${a.p99Ms} ms; offers for 10 EANs ${b.requestsPerSecond} req/s p99 ${b.p99Ms} ms`,
      );
    }
  } finally {
    await server?.stop();
    await db.drop();
  }
  const rps = (runs: LoadResult[]) => runs.map((run) => run.requestsPerSecond);
  const p99 = spread(list.map((run) => run.p99Ms));
  return {
    rows: [
      {
        scenario: 'list-offers',
        party: 'priced list of 50 items, SQLite',
        metric: 'throughput',
        unit: 'req/s',
        spread: spread(rps(list)),
      },
      { scenario: 'list-offers', party: 'priced list of 50 items, SQLite', metric: 'p99', unit: 'ms', spread: p99 },
      {
        scenario: 'list-offers',
        party: 'offers for 10 EANs (same server)',
        metric: 'throughput',
        unit: 'req/s',
        spread: spread(rps(plain)),
      },
      {
        scenario: 'list-offers',
        party: 'priced list ÷ offers call',
        metric: 'throughput ratio',
        unit: '×',
        spread: ratios(rps(list), rps(plain)),
      },
    ],
    targets: [target('list-offers', 'priced 50-item list p99 at 50 connections', p99.median, 10, 'ms', 'atMost')],
    notes: [],
    raw: { list, plain },
  };
}
