/** The printed table, the JSON files and the SVG chart of one bench run. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import type { Spread } from './measure.js';
import { ROOT } from './proc.js';
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
  const lines = ['| target (issue 6 §2) | measured (median) | verdict |', '|---|---|---|'];
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
    `<text x="16" y="24" font-size="16" font-weight="600">Shelfmark bench: measured ÷ target (issue 6), ≥ 100 % = met</text>`,
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

export function writeResults(
  result: Record<string, unknown>,
  targets: readonly Target[],
  subtitle: string,
  writeChart: boolean,
): string[] {
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const date = new Date().toISOString().slice(0, 10);
  const text = `${JSON.stringify(
    result,
    (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? null : value),
    2,
  )}\n`;
  const files = [join(dir, `${date}.json`), join(dir, 'latest.json')];
  for (const file of files) writeFileSync(file, text);
  if (writeChart) {
    const chart = join(ROOT, 'docs', 'bench.svg');
    mkdirSync(dirname(chart), { recursive: true });
    writeFileSync(chart, svg(targets, subtitle));
    files.push(chart);
  }
  return files;
}

const START = '<!-- bench:last-run:start';
const END = '<!-- bench:last-run:end -->';

/**
 * The "last full run" block of docs/performance.md, between its markers: machine, date, duration, load, the tables,
 * the notes and a sentence on which targets are met. Only a full run writes it.
 */
export function readmeBlock(input: {
  when: string;
  host: Record<string, string | number>;
  seconds: number;
  loadAtEnd: number | string | undefined;
  rows: readonly Row[];
  targets: readonly Target[];
  notes: readonly string[];
  rounds: number;
}): string {
  const { host, targets } = input;
  const met = targets.filter((t) => t.met).map((t) => t.label);
  const missed = targets.filter((t) => !t.met);
  const summary =
    missed.length === 0
      ? 'Every target of issue 6 section 2 is met in this run.'
      : `${met.length} of ${targets.length} targets of issue 6 section 2 met in this run${met.length === 0 ? '' : ` (${met.join('; ')})`}; the table says by how much each other one is missed.`;
  return [
    `Last full run: \`npm run bench\`, ${input.when.slice(0, 16).replace('T', ' ')} UTC, ${host.cpuModel}, ${host.cores} cores, Node ${host.node},`,
    `${Math.round(input.seconds / 60)} min; **every party in its own process** (server \`node dist/server.js\`, autocannon, receiver,`,
    `baselines, peers); median of ${input.rounds} interleaved rounds (min–max). The machine's 1-minute load average was`,
    `${host.loadAverage1m} at the start and ${String(input.loadAtEnd)} at the end (${host.cores} cores shared with other work): absolute figures are`,
    'noisy, the ratios of interleaved rounds are the figures to compare. Source: `bench/results/latest.json`.',
    '',
    '![Bench: measured ÷ target per scenario](bench.svg)',
    '',
    table(input.rows),
    '',
    targetTable(targets),
    '',
    ...input.notes.map((note) => `- ${note}`),
    '',
    summary,
  ].join('\n');
}

/** Replaces the block between the markers of docs/performance.md; leaves the file alone when the markers are missing. */
export function updateReadme(block: string): string | undefined {
  const file = join(ROOT, 'docs', 'performance.md');
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) return undefined;
  const opening = text.indexOf('-->', start) + 3;
  writeFileSync(file, `${text.slice(0, opening)}\n${block}\n${text.slice(end)}`);
  // The tables are written unpadded; the project's formatter lays them out, so a bench run leaves a
  // file that `npm test`'s lint step accepts.
  execFileSync(join(ROOT, 'node_modules', '.bin', 'biome'), ['format', '--write', file], { stdio: 'ignore' });
  return file;
}
