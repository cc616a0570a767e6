/** The console's storage view: rows and the oldest row per table, the database's size, retention and the last prune. */
import type { StorageTable, StorageView } from '../../retention/schemas.js';
import { problemText } from '../common/api.js';
import { h } from '../common/dom.js';
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
  return unit === 0 ? `${size} B` : `${size.toFixed(size < 10 ? 1 : 0)} ${units[unit]}`;
}

const days = (n: number): string => (n === 0 ? 'forever' : `${n} days`);

function card(label: string, value: string): HTMLElement {
  return h('div', { className: 'card' }, [
    h('div', { className: 'value' }, value),
    h('div', { className: 'label' }, label),
  ]);
}

function space(view: StorageView): string {
  if (view.engine === 'postgres') return 'PostgreSQL reuses the space of deleted rows (autovacuum).';
  const free = bytes(view.freeBytes ?? 0);
  return view.autoVacuum === 'incremental'
    ? `SQLite returns the pages a prune frees to the file system (auto_vacuum=incremental); ${free} free inside the file.`
    : `SQLite reuses the pages a prune frees for new rows (${free} free inside the file); run npx shelfmark prune --vacuum once to return them.`;
}

export async function storage(root: HTMLElement): Promise<void> {
  root.append(h('h1', {}, 'Storage'));
  const result = await api<StorageView>('GET', '/storage');
  if (!result.ok) {
    root.append(empty(`Could not load: ${problemText(result)}`));
    return;
  }
  const view = result.data;
  const r = view.retention;
  const last = view.lastPrune;
  root.append(
    // Six tiles: two full rows of three on a wide screen, three rows of two on a phone (none alone on a row).
    h('div', { className: 'cards three' }, [
      card(`database (${view.engine})`, bytes(view.databaseBytes)),
      card(
        'automatic prune',
        r.pruneIntervalSeconds === 0 ? 'off' : `every ${Math.round(r.pruneIntervalSeconds / 60)} min`,
      ),
      card('succeeded deliveries kept', days(r.deliveryDays)),
      card('failed deliveries kept', days(r.failedDeliveryDays)),
      card('events kept', days(r.eventDays)),
      card('response bodies kept', days(r.responseBodyDays)),
    ]),
    h('p', { className: 'muted' }, space(view)),
    h('h2', {}, 'Tables'),
    table<StorageTable>(view.tables, [
      ['table', (t) => h('code', {}, t.table)],
      ['rows', (t) => `${t.rowsExact ? '' : '≈ '}${t.rows.toLocaleString()}`],
      ['oldest row', (t) => when(t.oldestAt)],
      ['kept', (t) => t.bound],
    ]),
    h('h2', {}, 'Last prune'),
  );
  if (last === null) {
    const schedule =
      r.pruneIntervalSeconds === 0
        ? 'The worker never prunes by itself (PRUNE_INTERVAL_SECONDS=0): run npx shelfmark prune.'
        : `The worker prunes every ${Math.round(r.pruneIntervalSeconds / 60)} minutes, the first time a minute after it starts.`;
    root.append(empty(`No prune yet. ${schedule}`));
  } else {
    const pruned = Object.entries(last.rows).filter(([, rows]) => rows > 0);
    root.append(
      h('p', {}, [
        'Finished ',
        when(last.finishedAt),
        ` after ${Math.max(0, Date.parse(last.finishedAt) - Date.parse(last.startedAt)) / 1000} s`,
        last.complete ? '.' : ', stopped early (the next prune goes on).',
      ]),
      pruned.length === 0
        ? empty('Nothing was old enough to go.')
        : table(pruned, [
            ['table', ([name]) => h('code', {}, name)],
            ['rows removed', ([, rows]) => rows.toLocaleString()],
          ]),
    );
  }
  root.append(h('p', { className: 'muted' }, ['Updated ', when(view.generatedAt), '.']));
}
