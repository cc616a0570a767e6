/**
 * N long-poll readers of the event feed, each on a connection of its own: `wait=30` after the given
 * cursor. Prints `WAITING` once every request is sent, then `RESULT {answered, maxArrivalMs, ...}` with
 * the epoch time of each answer's arrival summarised, so the orchestrator can time one event reaching
 * them all. Argument: JSON {url, token, after, count}.
 */
import { Agent, request } from 'undici';

const args = JSON.parse(process.argv[2] ?? '{}') as { url: string; token: string; after: string; count: number };
const agent = new Agent({ connections: args.count, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000 });
const arrivals: number[] = [];
let withEvent = 0;
let failed = 0;
const url = `${args.url}/api/lml/v1/events?after=${encodeURIComponent(args.after)}&wait=30`;
const requests = Array.from({ length: args.count }, async () => {
  try {
    const response = await request(url, {
      dispatcher: agent,
      headers: { authorization: `Bearer ${args.token}` },
    });
    const body = (await response.body.json()) as { data?: unknown[] };
    arrivals.push(performance.timeOrigin + performance.now());
    if (response.statusCode === 200 && (body.data?.length ?? 0) > 0) withEvent++;
    else failed++;
  } catch {
    failed++;
  }
});
process.stdout.write('WAITING\n');
await Promise.all(requests);
arrivals.sort((a, b) => a - b);
process.stdout.write(
  `RESULT ${JSON.stringify({ answered: arrivals.length, withEvent, failed, firstArrival: arrivals[0] ?? 0, lastArrival: arrivals.at(-1) ?? 0 })}\n`,
);
await agent.close();
