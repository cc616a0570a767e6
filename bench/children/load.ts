/**
 * The load generator, in a process of its own: one autocannon run, its summary printed as
 * `RESULT {json}` on stdout. Argument: a JSON object {url, method?, headers?, body?, connections, seconds,
 * pathsFile?}; with `pathsFile` (a JSON array of paths) the requests go to those paths in turn instead
 * of the URL's own.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

interface LoadArgs {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  pathsFile?: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as LoadArgs;
const paths = args.pathsFile === undefined ? undefined : (JSON.parse(readFileSync(args.pathsFile, 'utf8')) as string[]);
let next = 0;
const result = await autocannon({
  url: args.url,
  method: args.method ?? 'GET',
  headers: args.headers ?? {},
  ...(args.body === undefined ? {} : { body: args.body }),
  connections: args.connections,
  duration: args.seconds,
  pipelining: 1,
  ...(paths === undefined
    ? {}
    : {
        requests: [
          {
            setupRequest: (request) => {
              request.path = paths[next++ % paths.length] as string;
              return request;
            },
          },
        ],
      }),
});
const summary = {
  requestsPerSecond: Math.round(result.requests.average),
  requests: result.requests.total,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  bytesPerResponse: result.requests.total > 0 ? Math.round(result.throughput.total / result.requests.total) : 0,
  // Which answers the non-2xx were (e.g. {"503": 6}): a failing server must be told from a slow one.
  statusCodes: Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]),
  ),
};
process.stdout.write(`RESULT ${JSON.stringify(summary)}\n`);
