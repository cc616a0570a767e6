/**
 * The webhook receiver, in a process of its own: answers every POST with 204, counts arrivals and
 * timestamps them (epoch milliseconds with sub-millisecond precision, comparable across processes
 * on one host). Control endpoints for the orchestrator:
 *   GET  /_stats?n=N&wait=MS&from=K   waits up to MS until N distinct deliveries arrived, then
 *                              {count, distinct, first, nth, kth} (nth, kth: arrival times of the Nth
 *                              and the Kth distinct one)
 *   GET  /_arrivals            {identifier: first arrival time} from the payloads' `identifier`
 *   POST /_reset               forgets everything
 * Arguments: port, and optionally how many milliseconds to wait before answering (0: at once), as a
 * receiver across a network or doing its own work answers (arrivals are timestamped on receipt).
 */
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const answerDelayMs = Number(process.argv[3] ?? '0');
const now = (): number => performance.timeOrigin + performance.now();

let count = 0;
let seen = new Set<string>();
let times: number[] = [];
let arrivals = new Map<string, number>();
let waiters: { n: number; wake: () => void }[] = [];

function stats(n: number, k: number): Record<string, number | null> {
  return {
    count,
    distinct: times.length,
    first: times[0] ?? null,
    nth: times[n - 1] ?? null,
    kth: k > 0 ? (times[k - 1] ?? null) : null,
    last: times[times.length - 1] ?? null,
  };
}

const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url?.startsWith('/_reset') === true) {
    count = 0;
    seen = new Set();
    times = [];
    arrivals = new Map();
    res.writeHead(204).end();
    return;
  }
  if (req.method === 'GET' && req.url?.startsWith('/_stats') === true) {
    const query = new URL(req.url, 'http://x').searchParams;
    const n = Number(query.get('n') ?? '0');
    const wait = Number(query.get('wait') ?? '0');
    const from = Number(query.get('from') ?? '0');
    const answer = (): void =>
      void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats(n, from)));
    if (times.length >= n || wait <= 0) return answer();
    const timer = setTimeout(() => {
      waiters = waiters.filter((waiter) => waiter.wake !== wake);
      answer();
    }, wait);
    const wake = (): void => {
      clearTimeout(timer);
      answer();
    };
    waiters.push({ n, wake });
    return;
  }
  if (req.method === 'GET' && req.url?.startsWith('/_arrivals') === true) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Object.fromEntries(arrivals)));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = now();
    count++;
    // A retry carries the same webhook-id: the throughput counts distinct deliveries.
    const id = req.headers['webhook-id'];
    const key = typeof id === 'string' ? id : `anon-${count}`;
    if (!seen.has(key)) {
      seen.add(key);
      times.push(at);
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { identifier?: unknown };
        if (typeof body.identifier === 'string' && !arrivals.has(body.identifier)) arrivals.set(body.identifier, at);
      } catch {
        // not JSON: counted, not timestamped per identifier
      }
    }
    if (answerDelayMs > 0) setTimeout(() => res.writeHead(204).end(), answerDelayMs);
    else res.writeHead(204).end();
    if (waiters.length > 0) {
      const ready = waiters.filter((waiter) => times.length >= waiter.n);
      waiters = waiters.filter((waiter) => times.length < waiter.n);
      for (const waiter of ready) waiter.wake();
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`READY ${JSON.stringify({ port })}\n`));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
