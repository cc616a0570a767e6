/**
 * The catalogue scenario's parties, each a process of its own that can be restarted on the same data:
 * Shelfmark (the compiled server), the straightforward baseline (a query per request) and the
 * in-memory ceiling (every offer pre-serialised per EAN). A restart is what the cold figures measure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { processCpu } from './cpu.js';
import { type LoadResult, load, sampleRss } from './measure.js';
import { type Child, freePort, spawnChild } from './proc.js';
import { type Database, type Server, startServer } from './shelfmark.js';

/** The service fee the server uses unless configured (SERVICE_FEE_CENTS): the baselines add the same. */
export const FEE_CENTS = 199;

export interface Running {
  url: string;
  pids: () => number[];
  stop(): Promise<void>;
  assertRunning(): void;
}

export interface CatalogueParty {
  name: string;
  kind: 'shelfmark' | 'plain' | 'memory';
  headers: Record<string, string>;
  running: Running;
  start(): Promise<Running>;
}

/** One load run of the query mix against a party, with the server's CPU (and PostgreSQL's) per request. */
export interface MixRun extends LoadResult {
  serverCpuMicros: number;
  postgresCpuMicros: number;
  /** The server's resident memory at its highest during the run. */
  rssPeakMiB: number;
}

export async function runMix(
  party: CatalogueParty,
  pathsFile: string,
  seconds: number,
  connections = 10,
): Promise<MixRun> {
  const pids = party.running.pids();
  const serverBefore = pids.reduce((sum, pid) => sum + processCpu(pid), 0);
  const postgresBefore = postgresCpuByPid();
  const rss = sampleRss(() => pids);
  const result = await load({
    url: `${party.running.url}/api/v1/offers`,
    headers: party.headers,
    seconds,
    connections,
    pathsFile,
  });
  const { peakMiB } = rss.stop();
  const server = pids.reduce((sum, pid) => sum + processCpu(pid), 0) - serverBefore;
  let postgres = 0;
  for (const [pid, seconds] of postgresCpuByPid()) postgres += seconds - (postgresBefore.get(pid) ?? 0);
  party.running.assertRunning();
  const per = (seconds: number): number =>
    result.requests > 0 ? Math.round((seconds * 1e6) / result.requests) : Number.NaN;
  return { ...result, serverCpuMicros: per(server), postgresCpuMicros: per(postgres), rssPeakMiB: peakMiB };
}

/**
 * CPU seconds of each PostgreSQL process by pid: a backend that ends during a run is left out rather
 * than subtracted, and one that starts during it counts from zero.
 */
function postgresCpuByPid(): Map<number, number> {
  const found = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        found.set(Number(entry), processCpu(Number(entry)));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

function fromServer(server: Server): Running {
  return {
    url: server.url,
    pids: () => [server.child.pid],
    stop: async () => {
      await server.stop();
    },
    assertRunning: () => {
      if (server.child.ended() !== undefined)
        throw new Error(`Shelfmark ended during the run; stderr: ${server.child.stderr().slice(-1500)}`);
    },
  };
}

function fromChild(child: Child, port: number): Running {
  return {
    url: `http://127.0.0.1:${port}`,
    pids: () => [child.pid],
    stop: async () => {
      await child.stop('SIGTERM', 5000);
    },
    assertRunning: () => {
      if (child.ended() !== undefined)
        throw new Error(`${child.name} ended during the run; stderr: ${child.stderr().slice(-1500)}`);
    },
  };
}

export async function shelfmarkParty(
  name: string,
  db: Database,
  server: Server,
  headers: Record<string, string>,
  env: Record<string, string> = {},
): Promise<CatalogueParty> {
  return {
    name,
    kind: 'shelfmark',
    headers,
    running: fromServer(server),
    start: async () => fromServer(await startServer(db, { env })),
  };
}

export async function baselineParty(name: string, kind: 'plain' | 'memory', db: Database): Promise<CatalogueParty> {
  const start = async (): Promise<Running> => {
    const port = await freePort();
    const child = spawnChild(`catalogue-${kind}`, [String(port), db.engine, db.url, String(FEE_CENTS)]);
    await child.line('READY', 120_000);
    return fromChild(child, port);
  };
  return { name, kind, headers: {}, running: await start(), start };
}

/**
 * Stops the party and starts it again on the same data; answers when it is ready (Shelfmark: /readyz,
 * the baselines: their READY line), with the seconds from the start of the process to then.
 */
export async function restart(party: CatalogueParty): Promise<number> {
  await party.running.stop();
  const started = performance.now();
  party.running = await party.start();
  return (performance.now() - started) / 1000;
}
