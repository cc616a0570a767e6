/** The printed tables and the SVG chart of one bench run. */
import { cpus, loadavg, totalmem } from 'node:os';
import type { Spread } from './measure.js';
import { type Row, round, type Target } from './types.js';

export function machine(): Record<string, string | number> {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverage1m: Math.round((loadavg()[0] ?? 0) * 10) / 10,
  };
}

const fmt = (value: number, unit: string): string => {
  if (!Number.isFinite(value)) return '—';
  const rounded = round(value);
  const text = Math.abs(rounded) >= 1000 ? rounded.toLocaleString('en-US') : String(rounded);
  return unit === '%' ? `${text} %` : unit === '×' ? `${text}×` : text;
};

export function cell(spread: Spread, unit: string): string {
  if (spread.values.length <= 1) return fmt(spread.median, unit);
  return `${fmt(spread.median, unit)} (${fmt(spread.min, unit)}–${fmt(spread.max, unit)})`;
}

/** Markdown table: scenario | party | metric | median (min–max). */
export function table(rows: readonly Row[]): string {
  const lines = ['| scenario | party (own process) | metric | median (min–max) | unit |', '|---|---|---|---|---|'];
  for (const row of rows)
    lines.push(`| ${row.scenario} | ${row.party} | ${row.metric} | ${cell(row.spread, row.unit)} | ${row.unit} |`);
  return lines.join('\n');
}

export function targetTable(targets: readonly Target[]): string {
  const lines = ['| target | measured (median) | verdict |', '|---|---|---|'];
  for (const t of targets)
    lines.push(
      `| ${t.label} | ${fmt(t.value, t.unit)}${t.unit === '%' || t.unit === '×' ? '' : ` ${t.unit}`} | ${t.met ? '✅' : '❌'} ${t.verdict} |`,
    );
  return lines.join('\n');
}

/** Score of a target: ≥ 1 when met (measured/target for "at least", target/measured for "at most"). */
export function score(t: Target): number {
  if (!Number.isFinite(t.value) || t.value <= 0) return t.kind === 'atMost' && t.value <= 0 ? 2 : 0;
  return t.kind === 'atLeast' ? t.value / t.target : t.target / t.value;
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Horizontal bars, one per target: the measured value as a share of its target, a line at 100 %. */
export function svg(targets: readonly Target[], subtitle: string): string {
  // The label column fits the longest label (about 7 px a character at 13 px), so bars never cover it.
  const labelWidth = Math.max(300, 36 + 7 * Math.max(0, ...targets.map((t) => t.label.length)));
  const barArea = 390;
  const width = labelWidth + barArea + 90;
  const rowHeight = 26;
  const top = 64;
  const height = top + targets.length * rowHeight + 40;
  const max = Math.max(2, ...targets.map((t) => Math.min(score(t), 4)));
  const x = (value: number): number => labelWidth + (Math.min(value, max) / max) * barArea;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="13">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="16" y="24" font-size="16" font-weight="600">Shelfmark bench: measured ÷ target, ≥ 100 % = met</text>`,
    `<text x="16" y="44" fill="#555">${escapeXml(subtitle)}</text>`,
  ];
  targets.forEach((t, index) => {
    const y = top + index * rowHeight;
    const s = score(t);
    const colour = t.met ? '#2e7d32' : '#c62828';
    parts.push(`<text x="16" y="${y + 16}">${escapeXml(t.label)}</text>`);
    parts.push(
      `<rect x="${labelWidth}" y="${y + 4}" width="${Math.max(1, x(s) - labelWidth).toFixed(1)}" height="16" fill="${colour}" opacity="0.85"/>`,
    );
    parts.push(
      `<text x="${(x(s) + 6).toFixed(1)}" y="${y + 16}" fill="#222">${Math.round(s * 100)} %${s > max ? ' ▸' : ''}</text>`,
    );
  });
  const line = x(1).toFixed(1);
  parts.push(
    `<line x1="${line}" y1="${top - 6}" x2="${line}" y2="${top + targets.length * rowHeight}" stroke="#000" stroke-dasharray="4 3"/>`,
  );
  parts.push(
    `<text x="${line}" y="${top + targets.length * rowHeight + 18}" text-anchor="middle" fill="#000">target</text>`,
  );
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
