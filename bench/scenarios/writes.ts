/**
 * Audited admin writes (`npm run bench -- --only writes`): school renames over the admin API, each one
 * transaction with its school.modified event, one delivery to a subscribed receiver and its audit
 * record. Per round and engine (interleaved: SQLite, PostgreSQL, SQLite, ...): 200 renames one after
 * another (the time of one, median), then 600 with 16 in flight (renames answered per second). The
 * server, the receiver and this driver each run in their own process; the server's worker delivers
 * meanwhile, as it would in production.
 */
import { percentile, type Receiver, spread, startReceiver } from '../lib/measure.js';
import {
  admin,
  type Engine,
  freshDatabase,
  pool,
  type Server,
  startServer,
  subscribeClient,
} from '../lib/shelfmark.js';
import type { Row, ScenarioResult, Settings } from '../lib/types.js';

const SERIAL = 200;
const CONCURRENT = 600;
const IN_FLIGHT = 16;
const LABEL: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

interface EngineFigures {
  serialMs: number[];
  perSecond: number[];
}

/** A server on a fresh database with a school.modified subscription and enough schools for every round. */
async function prepare(
  engine: Engine,
  receiver: Receiver,
  rounds: number,
): Promise<{ server: Server; schools: string[]; drop(): Promise<void> }> {
  const db = await freshDatabase(engine);
  const server = await startServer(db);
  await subscribeClient(server, 'school.modified', [receiver.hookUrl]);
  const count = rounds * (SERIAL + CONCURRENT);
  const schools: string[] = new Array(count);
  await pool(
    Array.from({ length: count }, (_, i) => i),
    8,
    async (i) => {
      schools[i] = (
        await admin<{ identifier: string }>(server, '/schools', 'POST', { name: `Writes ${i}`, type: 'PO' })
      ).identifier;
    },
  );
  return {
    server,
    schools,
    drop: async () => {
      await server.stop();
      await db.drop();
    },
  };
}

async function round(server: Server, schools: string[]): Promise<{ serialMs: number; perSecond: number }> {
  const times: number[] = [];
  for (const school of schools.slice(0, SERIAL)) {
    const began = performance.now();
    await admin(server, `/schools/${school}`, 'PATCH', { name: `Renamed ${school}` });
    times.push(performance.now() - began);
  }
  const began = performance.now();
  await pool(schools.slice(SERIAL, SERIAL + CONCURRENT), IN_FLIGHT, async (school) => {
    await admin(server, `/schools/${school}`, 'PATCH', { name: `Renamed ${school}` });
  });
  const seconds = (performance.now() - began) / 1000;
  return {
    serialMs: percentile(
      times.sort((a, b) => a - b),
      0.5,
    ),
    perSecond: Math.round(CONCURRENT / seconds),
  };
}

export async function writesScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const engines: Engine[] = settings.postgres ? ['sqlite', 'postgres'] : ['sqlite'];
  const receiver = await startReceiver();
  const prepared = new Map<Engine, Awaited<ReturnType<typeof prepare>>>();
  const figures = new Map<Engine, EngineFigures>(engines.map((engine) => [engine, { serialMs: [], perSecond: [] }]));
  try {
    for (const engine of engines) prepared.set(engine, await prepare(engine, receiver, settings.rounds));
    for (let r = 0; r < settings.rounds; r++) {
      for (const engine of r % 2 === 0 ? engines : [...engines].reverse()) {
        const { server, schools } = prepared.get(engine) as Awaited<ReturnType<typeof prepare>>;
        const offset = r * (SERIAL + CONCURRENT);
        const result = await round(server, schools.slice(offset, offset + SERIAL + CONCURRENT));
        figures.get(engine)?.serialMs.push(result.serialMs);
        figures.get(engine)?.perSecond.push(result.perSecond);
        log(
          `  round ${r + 1} ${LABEL[engine]}: a rename alone ${result.serialMs.toFixed(2)} ms (median of ${SERIAL}); ${IN_FLIGHT} in flight: ${result.perSecond} renames/s`,
        );
      }
    }
  } finally {
    for (const { drop } of prepared.values()) await drop();
    await receiver.stop();
  }
  const rows: Row[] = engines.flatMap((engine) => {
    const { serialMs, perSecond } = figures.get(engine) as EngineFigures;
    const party = `Shelfmark, ${LABEL[engine]}`;
    return [
      { scenario: 'writes', party, metric: 'an audited rename alone', unit: 'ms', spread: spread(serialMs) },
      {
        scenario: 'writes',
        party,
        metric: `audited renames, ${IN_FLIGHT} in flight`,
        unit: '/s',
        spread: spread(perSecond),
      },
    ];
  });
  return {
    rows,
    targets: [],
    notes: [
      `writes: school renames over the admin API (each with its event, a delivery to one subscriber and an audit record): ${SERIAL} one after another, then ${CONCURRENT} with ${IN_FLIGHT} in flight, per round; engines interleaved`,
    ],
    raw: Object.fromEntries(figures),
  };
}
