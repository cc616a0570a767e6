/**
 * The overview's warning when deliveries wait and no delivery worker is alive to send them: how many
 * wait, how long since a worker was last seen, and how to start one.
 */
import type { Overview } from '../../overview/schemas.js';
import { h } from '../common/dom.js';
import { formatNumber, parts, t } from '../common/i18n.js';

/** Each unit is used up to the next one's worth and a half: "90 s", then "2 min"; "36 h", then "2 days". */
const UNITS: readonly (readonly ['second' | 'minute' | 'hour' | 'day', number, number])[] = [
  ['second', 1, 90],
  ['minute', 60, 90 * 60],
  ['hour', 3600, 36 * 3600],
];

/** A span of time, short, in the page's language: "45 s", "2 min", "3 h", "2 days". */
function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const [unit, size] = UNITS.find(([, , below]) => seconds < below) ?? ['day', 86400];
  return formatNumber(Math.round(seconds / size), {
    style: 'unit',
    unit,
    unitDisplay: unit === 'day' ? 'long' : 'short',
  });
}

export function workerNotice(o: Overview): HTMLElement | null {
  if (!o.workers.missing) return null;
  const count = o.queueDepth;
  // Measured between the server's own times, so the browser's clock does not enter it.
  const lead =
    o.workers.lastSeenAt === null
      ? t('overview.noWorkerEver', { count })
      : t('overview.noWorker', {
          count,
          ago: duration(Date.parse(o.generatedAt) - Date.parse(o.workers.lastSeenAt)),
        });
  const command = h('code', {}, 'npx shelfmark serve --role worker');
  const all = h('code', {}, '--role all');
  return h('div', { className: 'banner no-worker', role: 'alert', 'data-notice': 'no-worker' }, [
    h('p', {}, [h('strong', {}, lead), ' ', ...parts('overview.noWorkerHint', { command, all })]),
  ]);
}
