/** The rows every HTTP-load party reports (req/s and p99 over its rounds), and a note when it saw failures. */
import { type LoadResult, spread } from './measure.js';
import type { Row } from './types.js';

export function loadRows(
  scenario: string,
  party: string,
  results: readonly LoadResult[],
): { rows: Row[]; note: string | undefined } {
  const rows: Row[] = [
    { scenario, party, metric: 'req/s', unit: 'req/s', spread: spread(results.map((r) => r.requestsPerSecond)) },
    { scenario, party, metric: 'p99', unit: 'ms', spread: spread(results.map((r) => r.p99Ms)) },
  ];
  const failed = results.reduce((sum, result) => sum + result.non2xx + result.errors, 0);
  const codes = results.flatMap((result) =>
    Object.entries(result.statusCodes)
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, count]) => `${code}×${count}`),
  );
  const note =
    failed > 0
      ? `${scenario}: ${party} had ${failed} non-2xx answers or errors${codes.length > 0 ? ` (${codes.join(', ')})` : ''}`
      : undefined;
  return { rows, note };
}
