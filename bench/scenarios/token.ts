/**
 * GET /api/auth/token with HTTP Basic client credentials (a new signed JWT per call) on SQLite,
 * interleaved with a bare Fastify hello-world and with node-oidc-provider's token endpoint doing the
 * client_credentials grant (client_secret_basic, ES256 JWT access tokens), each in its own process.
 */

import { loadRows } from '../lib/load-rows.js';
import { type LoadArgs, type LoadResult, load, ratios, spread } from '../lib/measure.js';
import { assertRunning, type Child, freePort, spawnChild } from '../lib/proc.js';
import { createClient, freshDatabase, type Server, startServer } from '../lib/shelfmark.js';
import { type Row, type ScenarioResult, type Settings, target } from '../lib/types.js';

interface Party {
  name: string;
  args: Omit<LoadArgs, 'seconds'>;
  results: LoadResult[];
}

export async function tokenScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const db = await freshDatabase('sqlite');
  const children: Child[] = [];
  let server: Server | undefined;
  const parties: Party[] = [];
  try {
    server = await startServer(db);
    const client = await createClient(server, ['offers:read']);
    parties.push({
      name: 'Shelfmark GET /api/auth/token',
      args: { url: `${server.url}/api/auth/token`, headers: { authorization: client.basic } },
      results: [],
    });

    const helloPort = await freePort();
    const hello = spawnChild('hello', [String(helloPort)]);
    children.push(hello);
    await hello.line('READY', 20_000);
    parties.unshift({ name: 'Fastify hello-world', args: { url: `http://127.0.0.1:${helloPort}/` }, results: [] });

    const oidcPort = await freePort();
    const secret = 'bench-oidc-secret-0123456789abcdef';
    const oidc = spawnChild('oidc', [JSON.stringify({ port: oidcPort, clientId: 'bench', clientSecret: secret })]);
    children.push(oidc);
    await oidc.line('READY', 30_000);
    parties.push({
      name: 'node-oidc-provider POST /token',
      args: {
        url: `http://127.0.0.1:${oidcPort}/token`,
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`bench:${secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials&scope=offers%3Aread',
      },
      results: [],
    });
    for (const party of parties) {
      const probe = await fetch(party.args.url, {
        method: party.args.method ?? 'GET',
        headers: party.args.headers ?? {},
        ...(party.args.body === undefined ? {} : { body: party.args.body }),
      });
      if (probe.status !== 200)
        throw new Error(`${party.name} probe answered ${probe.status}: ${(await probe.text()).slice(0, 300)}`);
    }
    if (settings.warmupSeconds > 0)
      for (const party of parties) await load({ ...party.args, seconds: settings.warmupSeconds });
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? parties : [...parties].reverse();
      for (const party of order) {
        const result = await load({ ...party.args, seconds: settings.seconds });
        for (const child of [...children, ...(server === undefined ? [] : [server.child])]) assertRunning(child);
        party.results.push(result);
        log(
          `  round ${round + 1} ${party.name}: ${result.requestsPerSecond} req/s, p99 ${result.p99Ms} ms${result.non2xx + result.errors > 0 ? `, ${result.non2xx} non-2xx ${JSON.stringify(result.statusCodes)}, ${result.errors} errors` : ''}`,
        );
      }
    }
  } finally {
    for (const child of children) await child.stop().catch(() => undefined);
    await server?.stop();
    await db.drop();
  }
  const rps = (party: Party): number[] => party.results.map((result) => result.requestsPerSecond);
  const [hello, shelfmark, oidc] = [parties[0], parties[1], parties[2]];
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const party of parties) {
    const { rows: partyRows, note } = loadRows('token', party.name, party.results);
    rows.push(...partyRows);
    if (note !== undefined) notes.push(note);
  }
  const targets = [];
  if (hello !== undefined && shelfmark !== undefined && oidc !== undefined) {
    const ofHello = ratios(rps(shelfmark), rps(hello));
    const ofOidc = ratios(rps(shelfmark), rps(oidc));
    rows.push({
      scenario: 'token',
      party: shelfmark.name,
      metric: 'of hello-world',
      unit: '%',
      spread: spread(ofHello.values.map((value) => value * 100)),
    });
    rows.push({ scenario: 'token', party: shelfmark.name, metric: '× node-oidc-provider', unit: '×', spread: ofOidc });
    targets.push(target('token', 'token ≥ 25 % of hello-world', ofHello.median * 100, 25, '%', 'atLeast'));
    targets.push(target('token', 'token ≥ 3× node-oidc-provider', ofOidc.median, 3, '×', 'atLeast'));
  }
  return { rows, targets, notes, raw: Object.fromEntries(parties.map((party) => [party.name, party.results])) };
}
