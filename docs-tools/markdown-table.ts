/**
 * The generated tables of the docs (configuration, audit catalogue): laid out as the formatter
 * (Biome) lays Markdown tables out, so `biome check` and the drift tests agree on one text.
 */

const escapeCell = (text: string): string => text.replaceAll('|', '\\|');

/** Columns a cell takes as the formatter counts them: an emoji shown as a picture (✅) takes two. */
const widthOf = (text: string): number => [...text].length + (text.match(/\p{Emoji_Presentation}/gu)?.length ?? 0);

/** A Markdown table with every column padded to its widest cell. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = rows.map((row) => row.map(escapeCell));
  const widths = header.map((title, column) =>
    Math.max(widthOf(title), ...cells.map((row) => widthOf(row[column] ?? ''))),
  );
  const pad = (cell: string, width: number) => cell + ' '.repeat(Math.max(0, width - widthOf(cell)));
  const line = (row: readonly string[]) => `| ${row.map((cell, i) => pad(cell, widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}

/** `document` with the text between the two marker lines replaced; undefined when a marker is missing. */
export function replaceBetween(document: string, start: string, end: string, content: string): string | undefined {
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from < 0 || to < from) return undefined;
  return `${document.slice(0, from + start.length)}\n${content}\n${document.slice(to)}`;
}
