/** Times and durations as the pages show them: relative, with the exact local and UTC value on hover. */
import { h } from './dom.js';

const UNITS: readonly (readonly [Intl.RelativeTimeFormatUnit, number])[] = [
  ['year', 31536000],
  ['month', 2592000],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

export function relative(iso: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const diff = (at - Date.now()) / 1000;
  const abs = Math.abs(diff);
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of UNITS)
    if (abs >= size || unit === 'second') return format.format(Math.round(diff / size), unit);
  return iso;
}

const exact = (iso: string): string => `${new Date(iso).toLocaleString()} (${iso})`;

/** A time shown relative ("5 minutes ago"), exact local and UTC time on hover. */
export function when(iso: string | null | undefined): HTMLElement {
  if (!iso) return h('span', { className: 'muted' }, '—');
  return h('time', { datetime: iso, title: exact(iso), tabindex: '0' }, relative(iso));
}

/**
 * A moment in an "until …" sentence: the exact local time as text ("until 27/11/2026, 10:00:00"), the
 * relative time and UTC on hover — a relative time reads wrong there ("until in 24 hours").
 */
export function untilText(iso: string): HTMLElement {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return h('span', {}, iso);
  const text = at.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
  return h('time', { datetime: iso, title: `${relative(iso)} (${iso})`, tabindex: '0' }, text);
}

/** How long until `iso`, short: "in 4 s", "in 3 min", "in 2 h", "in 1 d"; "now" once it is due. */
export function countdown(iso: string): string {
  const seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds <= 0) return 'now';
  if (seconds < 60) return `in ${seconds} s`;
  if (seconds < 3600) return `in ${Math.round(seconds / 60)} min`;
  if (seconds < 86400) return `in ${Math.round(seconds / 3600)} h`;
  return `in ${Math.round(seconds / 86400)} d`;
}

/** "next attempt in 4 s", exact time on hover. */
export function nextAttempt(iso: string): HTMLElement {
  const due = countdown(iso);
  return h(
    'time',
    { className: 'next-attempt', datetime: iso, title: exact(iso), tabindex: '0' },
    due === 'now' ? 'next attempt due now' : `next attempt ${due}`,
  );
}

export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(value < 10000 ? 1 : 0)} s`;
}
