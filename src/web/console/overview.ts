/** The console's overview: counts, the queue, failures, latency and a chart of attempts per hour. */
import type { Overview } from '../../overview/schemas.js';
import { problemText } from '../common/api.js';
import { type Drawing, resizingChart } from '../common/chart.js';
import { h, main, s } from '../common/dom.js';
import { formatNumber, parts, t } from '../common/i18n.js';
import { hourOf, ms, when } from '../common/time.js';
import { empty } from '../common/widgets.js';
import { api } from './app.js';
import { workerNotice } from './worker-notice.js';

type Bucket = Overview['attemptsPerHour'][number];

const GREY = '#5f6b7a';

/** The chart's first drawing width: the figure's inner width, estimated before the figure is on the page. */
function chartWidth(): number {
  const style = getComputedStyle(main);
  const padding = Number.parseFloat(style.paddingLeft) + Number.parseFloat(style.paddingRight);
  // The figure's own padding (0.75rem on each side) and border (1px on each side).
  const figure = 2 * Number.parseFloat(getComputedStyle(document.documentElement).fontSize) * 0.75 + 2;
  return Math.floor(main.clientWidth - padding - figure);
}

/** Axis text, a little smaller than the body text (15px), never larger. */
const AXIS_FONT = 12;

/** The bars of attempts per hour, for a chart `width` pixels wide: fewer hour labels and less height on a phone. */
const bars =
  (buckets: readonly Bucket[]): Drawing =>
  (width) => {
    const height = width < 500 ? 180 : 220;
    const [left, bottom, top] = [30, 28, 10];
    const labelEvery = width < 500 ? 6 : 3;
    const max = Math.max(1, ...buckets.map((b) => b.succeeded + b.failed));
    const step = (width - left - 8) / buckets.length;
    const y = (value: number): number => top + (height - top - bottom) * (1 - value / max);
    const parts: SVGElement[] = [];
    for (const tick of max >= 4 ? [0, Math.round(max / 2), max] : [0, max]) {
      parts.push(s('line', { x1: left, x2: width - 4, y1: y(tick), y2: y(tick), stroke: '#e4e7ec' }));
      const label = { x: left - 6, y: y(tick) + 4, 'text-anchor': 'end', 'font-size': AXIS_FONT, fill: GREY };
      parts.push(s('text', label, formatNumber(tick)));
    }
    buckets.forEach((b, i) => {
      const x = left + i * step + 2;
      const w = Math.max(2, step - 4);
      const title = t('overview.barTitle', { hour: hourOf(b.hour), count: b.succeeded, failed: b.failed });
      const group = s('g', {}, [s('title', {}, title)]);
      if (b.succeeded > 0)
        group.append(s('rect', { x, y: y(b.succeeded), width: w, height: y(0) - y(b.succeeded), fill: '#12b76a' }));
      if (b.failed > 0) {
        const bar = { x, y: y(b.succeeded + b.failed), width: w, height: y(b.succeeded) - y(b.succeeded + b.failed) };
        group.append(s('rect', { ...bar, fill: '#f04438' }));
      }
      parts.push(group);
      if (i % labelEvery === 0) {
        const label = { x: x + w / 2, y: height - 8, 'text-anchor': 'middle', 'font-size': AXIS_FONT, fill: GREY };
        parts.push(s('text', label, hourOf(b.hour)));
      }
    });
    return { height, parts };
  };

function chart(buckets: readonly Bucket[]): HTMLElement {
  const total = buckets.reduce((sum, b) => sum + b.succeeded + b.failed, 0);
  const legend = h('figcaption', { className: 'legend' }, [
    h('span', {}, [h('span', { className: 'swatch ok' }), t('overview.legendOk')]),
    h('span', {}, [h('span', { className: 'swatch fail' }), t('overview.legendFail')]),
    h('span', {}, total === 0 ? t('overview.noAttempts') : t('overview.attemptsTotal', { count: total })),
  ]);
  return resizingChart(chartWidth(), bars(buckets), t('overview.chartAria', { total }), legend);
}

function card(label: string, value: string | number, bad = false): HTMLElement {
  return h('div', { className: `card${bad ? ' bad' : ''}`, 'data-tile': label }, [
    h('div', { className: 'value' }, typeof value === 'number' ? formatNumber(value) : value),
    h('div', { className: 'label' }, label),
  ]);
}

export async function overview(root: HTMLElement): Promise<void> {
  root.append(h('h1', {}, t('overview.title')));
  const result = await api<Overview>('GET', '/overview');
  if (!result.ok) {
    root.append(empty(t('common.couldNotLoad', { problem: problemText(result) })));
    return;
  }
  const o = result.data;
  const noWorker = workerNotice(o);
  if (noWorker !== null) root.append(noWorker);
  root.append(
    // Eight tiles: two full rows of four on a wide screen, four rows of two on a phone. Each count says
    // what it counts; the failed attempts are the red bars of the chart below, so the two agree.
    h('div', { className: 'cards four' }, [
      card(t('overview.activeClients'), o.clients),
      card(t('overview.subscriptions'), o.subscriptions),
      card(t('overview.publishedLists'), o.publishedLists),
      card(t('overview.publishedOffers'), o.publishedOffers),
      card(t('overview.queued'), o.queueDepth),
      card(t('overview.failedAttempts'), o.failedAttempts24h, o.failedAttempts24h > 0),
      card(t('overview.failedDeliveries'), o.failedDeliveries24h, o.failedDeliveries24h > 0),
      card(t('overview.p95'), ms(o.p95DeliveryLatencyMs)),
    ]),
  );
  root.append(h('h2', {}, t('overview.chartTitle')), chart(o.attemptsPerHour));
  if (o.clients === 0) root.append(empty(t('overview.noClients')));
  root.append(h('p', { className: 'muted' }, parts('common.updated', { when: when(o.generatedAt) })));
}
