/**
 * The generated tables of the docs (configuration, audit catalogue): laid out as the formatter
 * (Biome) lays Markdown tables out, so `biome check` and the drift tests agree on one text.
 */

const escapeCell = (text: string): string => text.replaceAll('|', '\\|');

/** A Markdown table with every column padded to its widest cell. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = rows.map((row) => row.map(escapeCell));
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column]?.length ?? 0)));
  const line = (row: readonly string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}

/** `document` with the text between the two marker lines replaced; undefined when a marker is missing. */
export function replaceBetween(document: string, start: string, end: string, content: string): string | undefined {
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from < 0 || to < from) return undefined;
  return `${document.slice(0, from + start.length)}\n${content}\n${document.slice(to)}`;
}
