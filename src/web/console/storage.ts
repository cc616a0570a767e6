/** The console's storage view: rows and the oldest row per table, the database's size, retention and the last prune. */
import type { StorageTable, StorageView } from '../../retention/schemas.js';
import { problemText } from '../common/api.js';
import { h } from '../common/dom.js';
import { formatNumber, locale, parts, t } from '../common/i18n.js';
import { when } from '../common/time.js';
import { empty, table } from '../common/widgets.js';
import { api } from './app.js';

/** Decimal units, as `ls -lh --si` and disk vendors count. */
function bytes(value: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let size = value;
  let unit = 0;
  while (size >= 1000 && unit < units.length - 1) {
    size /= 1000;
    unit++;
  }
  const digits = size < 10 ? 1 : 0;
  const shown = formatNumber(size, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    useGrouping: false,
  });
  return unit === 0 ? `${formatNumber(size, { useGrouping: false })} B` : `${shown} ${units[unit]}`;
}

const days = (n: number): string => (n === 0 ? t('storage.forever') : t('storage.days', { count: n }));

/**
 * What pruning keeps of a table, in the page's language: the server says it in English (`bound`, the
 * API's words); the Dutch page says it from the retention settings, the figures the server put in it.
 */
function kept(row: StorageTable, r: StorageView['retention']): string {
  if (locale === 'en') return row.bound;
  const older = (n: number, what: string) =>
    n === 0 ? t('storage.bound.forever', { what }) : t('storage.bound.olderThan', { what, n });
  const figure = Number(/(\d+) (?:s|minutes)\b/.exec(row.bound)?.[1] ?? 0);
  const answers = older(r.responseBodyDays, t('storage.bound.answers'));
  const words: Readonly<Record<string, string>> = {
    deliveries: t('storage.bound.deliveries', {
      succeeded: older(r.deliveryDays, 'succeeded'),
      failed: older(r.failedDeliveryDays, 'failed'),
    }),
    delivery_attempts: `${t('storage.bound.attempts')}; ${answers}`,
    events: t('storage.bound.events', { events: older(r.eventDays, t('storage.bound.eventsWhat')) }),
    response_bodies: answers,
    delivery_stats: older(r.statsDays, t('storage.bound.counters')),
    idempotency_keys: t('storage.bound.keys'),
    web_sessions: t('storage.bound.sessions', { n: figure }),
    portal_links: t('storage.bound.links'),
    offer_changes: t('storage.bound.changes', { n: figure }),
    school_changes: t('storage.bound.changes', { n: figure }),
    audit_records: older(r.auditDays, t('storage.bound.auditWhat')),
  };
  return words[row.table] ?? row.bound;
}

function card(label: string, value: string): HTMLElement {
  return h('div', { className: 'card' }, [
    h('div', { className: 'value' }, value),
    h('div', { className: 'label' }, label),
  ]);
}

function space(view: StorageView): string {
  if (view.engine === 'postgres') return t('storage.postgres');
  const free = bytes(view.freeBytes ?? 0);
  return view.autoVacuum === 'incremental' ? t('storage.incremental', { free }) : t('storage.reuses', { free });
}

export async function storage(root: HTMLElement): Promise<void> {
  root.append(h('h1', {}, t('storage.title')));
  const result = await api<StorageView>('GET', '/storage');
  if (!result.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(result) })));
    return;
  }
  const view = result.data;
  const r = view.retention;
  const last = view.lastPrune;
  root.append(
    // Six tiles: two full rows of three on a wide screen, three rows of two on a phone (none alone on a row).
    h('div', { className: 'cards three' }, [
      card(t('storage.database', { engine: view.engine }), bytes(view.databaseBytes)),
      card(
        t('storage.autoPrune'),
        r.pruneIntervalSeconds === 0
          ? t('storage.off')
          : t('storage.every', { n: Math.round(r.pruneIntervalSeconds / 60) }),
      ),
      card(t('storage.succeededKept'), days(r.deliveryDays)),
      card(t('storage.failedKept'), days(r.failedDeliveryDays)),
      card(t('storage.eventsKept'), days(r.eventDays)),
      card(t('storage.bodiesKept'), days(r.responseBodyDays)),
    ]),
    h('p', { className: 'muted' }, space(view)),
    h('h2', {}, t('storage.tables')),
    table<StorageTable>(view.tables, [
      [t('storage.table'), (row) => h('code', {}, row.table)],
      [t('storage.rows'), (row) => `${row.rowsExact ? '' : '≈ '}${formatNumber(row.rows)}`],
      [t('storage.oldest'), (row) => when(row.oldestAt)],
      [t('storage.kept'), (row) => kept(row, r)],
    ]),
    h('h2', {}, t('storage.lastPrune')),
  );
  if (last === null) {
    const schedule =
      r.pruneIntervalSeconds === 0
        ? t('storage.neverPrunes')
        : t('storage.prunesEvery', { n: Math.round(r.pruneIntervalSeconds / 60) });
    root.append(empty(t('storage.noPrune', { schedule })));
  } else {
    const pruned = Object.entries(last.rows).filter(([, rows]) => rows > 0);
    root.append(
      h(
        'p',
        {},
        parts(last.complete ? 'storage.finished' : 'storage.stoppedEarly', {
          when: when(last.finishedAt),
          seconds: formatNumber(Math.max(0, Date.parse(last.finishedAt) - Date.parse(last.startedAt)) / 1000),
        }),
      ),
      pruned.length === 0
        ? empty(t('storage.nothingOld'))
        : table(pruned, [
            [t('storage.table'), ([name]) => h('code', {}, name)],
            [t('storage.removed'), ([, rows]) => formatNumber(rows)],
          ]),
    );
  }
  root.append(h('p', { className: 'muted' }, parts('common.updated', { when: when(view.generatedAt) })));
}
