/**
 * Compares two V8 heap snapshots (.heapsnapshot JSON, as node --heapsnapshot-signal writes them):
 * count and self size by node type and constructor/name, sorted by growth in bytes.
 *   npx tsx bench/lib/heap-diff.ts before.heapsnapshot after.heapsnapshot [top=30]
 *   npx tsx bench/lib/heap-diff.ts --collections snapshot.heapsnapshot   (the largest Maps and Sets)
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  bytes: number;
}

export function groups(file: string): Map<string, Group> {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const out = new Map<string, Group>();
  for (let i = 0; i < data.nodes.length; i += width) {
    const type = types[data.nodes[i + typeAt] as number] ?? '?';
    let name = data.strings[data.nodes[i + nameAt] as number] ?? '?';
    // Strings and code are grouped by kind, not by their text.
    if (['string', 'concatenated string', 'sliced string', 'code', 'number', 'hidden'].includes(type)) name = '';
    else if (name.length > 60) name = `${name.slice(0, 57)}...`;
    const key = `${type} ${name}`;
    const group = out.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += data.nodes[i + sizeAt] as number;
    out.set(key, group);
  }
  return out;
}

const [beforeFile, afterFile, topArg] = process.argv.slice(2);
if (beforeFile !== undefined && afterFile !== undefined && beforeFile !== '--collections') {
  const before = groups(beforeFile);
  const after = groups(afterFile);
  const total = (map: Map<string, Group>): number => [...map.values()].reduce((sum, g) => sum + g.bytes, 0);
  const keys = new Set([...before.keys(), ...after.keys()]);
  const rows = [...keys].map((key) => {
    const a = before.get(key) ?? { count: 0, bytes: 0 };
    const b = after.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: b.count - a.count, bytes: b.bytes - a.bytes, after: b };
  });
  rows.sort((x, y) => y.bytes - x.bytes);
  const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(2);
  process.stdout.write(`heap: ${mib(total(before))} MiB → ${mib(total(after))} MiB\n`);
  process.stdout.write('| Δ bytes (MiB) | Δ count | after count | node |\n|---:|---:|---:|---|\n');
  for (const row of rows.slice(0, Number(topArg ?? 30)))
    process.stdout.write(`| ${mib(row.bytes)} | ${row.count} | ${row.after.count} | ${row.key} |\n`);
}

/**
 * The largest Map and Set objects of a snapshot by the size of their hash table, each named by the
 * property that holds it (`fragments`, `buckets`, ...): per-key structures that grow show up here.
 */
export function largestCollections(file: string, top = 15): { holder: string; kind: string; tableBytes: number }[] {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Snapshot & { edges: number[] };
  const meta = data.snapshot.meta as Snapshot['snapshot']['meta'] & {
    edge_fields: string[];
    edge_types: [string[], ...unknown[]];
  };
  const width = meta.node_fields.length;
  const edgeWidth = meta.edge_fields.length;
  const [typeAt, nameAt, sizeAt, edgesAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
    meta.node_fields.indexOf(f),
  ) as [number, number, number, number];
  const [edgeTypeAt, edgeNameAt, toAt] = ['type', 'name_or_index', 'to_node'].map((f) =>
    meta.edge_fields.indexOf(f),
  ) as [number, number, number];
  const edgeTypes = meta.edge_types[0];
  const nodeName = (index: number): string => data.strings[data.nodes[index + nameAt] as number] ?? '?';
  const holders = new Map<number, string>();
  const tables = new Map<number, number>();
  let edge = 0;
  for (let node = 0; node < data.nodes.length; node += width) {
    const count = data.nodes[node + edgesAt] as number;
    for (let e = 0; e < count; e++, edge += edgeWidth) {
      const type = edgeTypes[data.edges[edge + edgeTypeAt] as number];
      const to = data.edges[edge + toAt] as number;
      const label =
        type === 'element' || type === 'hidden' ? '' : (data.strings[data.edges[edge + edgeNameAt] as number] ?? '');
      const targetName = nodeName(to);
      if ((targetName === 'Map' || targetName === 'Set') && type === 'property' && !holders.has(to))
        holders.set(to, `${nodeName(node)}.${label}`);
      if ((nodeName(node) === 'Map' || nodeName(node) === 'Set') && label === 'table')
        tables.set(node, data.nodes[to + sizeAt] as number);
    }
  }
  void typeAt;
  return [...tables]
    .map(([node, tableBytes]) => ({ holder: holders.get(node) ?? '(unnamed)', kind: nodeName(node), tableBytes }))
    .sort((a, b) => b.tableBytes - a.tableBytes)
    .slice(0, top);
}

if (process.argv[2] === '--collections' && process.argv[3] !== undefined) {
  for (const row of largestCollections(process.argv[3]))
    process.stdout.write(`${(row.tableBytes / 1024).toFixed(0)} KiB  ${row.kind}  held as ${row.holder}\n`);
}
