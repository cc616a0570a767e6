/**
 * Times and durations as the pages show them: relative, with the exact local and UTC value on hover;
 * all through Intl in the page's language (24-hour times and "28 nov 2026" in Dutch).
 */
import { h } from './dom.js';
import { formatLocale, formatNumber, t } from './i18n.js';

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
  const format = new Intl.RelativeTimeFormat(formatLocale, { numeric: 'auto' });
  for (const [unit, size] of UNITS)
    if (abs >= size || unit === 'second') return format.format(Math.round(diff / size), unit);
  return iso;
}

const exact = (iso: string): string => `${new Date(iso).toLocaleString(formatLocale)} (${iso})`;

/** A time shown relative ("5 minutes ago"), exact local and UTC time on hover. */
export function when(iso: string | null | undefined): HTMLElement {
  if (!iso) return h('span', { className: 'muted' }, '—');
  return h('time', { datetime: iso, title: exact(iso), tabindex: '0' }, relative(iso));
}

/** A date and time in the page's language: "28 nov 2026, 14:05", "Nov 28, 2026, 2:05 PM". */
export const dateTime = (at: Date): string =>
  at.toLocaleString(formatLocale, { dateStyle: 'medium', timeStyle: 'short' });

/** An hour of the day, as the chart's axis reads it: "14:00", "02:00 PM". */
export const hourOf = (iso: string): string =>
  new Date(iso).toLocaleTimeString(formatLocale, { hour: '2-digit', minute: '2-digit' });

/**
 * A moment in an "until …" sentence: the exact local time as text ("until 27/11/2026, 10:00:00"), the
 * relative time and UTC on hover — a relative time reads wrong there ("until in 24 hours").
 */
export function untilText(iso: string): HTMLElement {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return h('span', {}, iso);
  return h('time', { datetime: iso, title: `${relative(iso)} (${iso})`, tabindex: '0' }, dateTime(at));
}

/** Whether a scheduled moment has come (or cannot be read). */
export function isDue(iso: string): boolean {
  const seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
  return !Number.isNaN(seconds) && seconds <= 0;
}

/** How long until `iso`, short: "in 4 s", "in 3 min", "in 2 h", "in 1 d"; "now" once it is due. */
export function countdown(iso: string): string {
  const seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds <= 0) return t('time.now');
  if (seconds < 60) return t('time.inSeconds', { n: seconds });
  if (seconds < 3600) return t('time.inMinutes', { n: Math.round(seconds / 60) });
  if (seconds < 86400) return t('time.inHours', { n: Math.round(seconds / 3600) });
  return t('time.inDays', { n: Math.round(seconds / 86400) });
}

/** "next attempt in 4 s", exact time on hover. */
export function nextAttempt(iso: string): HTMLElement {
  return h(
    'time',
    { className: 'next-attempt', datetime: iso, title: exact(iso), tabindex: '0' },
    isDue(iso) ? t('time.nextAttemptNow') : t('time.nextAttempt', { due: countdown(iso) }),
  );
}

/** A duration: "250 ms", "1.5 s" ("1,5 s" in Dutch). */
export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (value < 1000) return `${formatNumber(Math.round(value), { useGrouping: false })} ms`;
  const digits = value < 10000 ? 1 : 0;
  const seconds = formatNumber(value / 1000, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    useGrouping: false,
  });
  return `${seconds} s`;
}
