/**
 * `tsx bench/heap-summary.ts before.heapsnapshot [after.heapsnapshot]`: what holds a V8 heap,
 * without a browser. Sums the self size and count of the objects of each kind (constructor
 * or string/code/array kind) and prints the largest; given two snapshots, prints the kinds
 * that grew most from the first to the second. The snapshots come from the bench
 * (BENCH_HEAP_SNAPSHOT=1) or from `node --heapsnapshot-signal=SIGUSR2`.
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] }; node_count: number };
  nodes: number[];
  strings: string[];
}

interface Kind {
  count: number;
  bytes: number;
}

export function summarise(file: string): Map<string, Kind> {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const types = s.snapshot.meta.node_types[0];
  const kinds = new Map<string, Kind>();
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt] as number] as string;
    const name = s.strings[s.nodes[i + nameAt] as number] as string;
    // Objects by constructor; strings, code and arrays by their kind (their names are their contents).
    const kind = type === 'object' || type === 'closure' ? `${type} ${name.slice(0, 60)}` : type === 'native' ? `native ${name.slice(0, 60)}` : type;
    const k = kinds.get(kind) ?? { count: 0, bytes: 0 };
    k.count++;
    k.bytes += s.nodes[i + sizeAt] as number;
    kinds.set(kind, k);
  }
  return kinds;
}

const MB = 1024 * 1024;
const row = (name: string, k: Kind, extra = '') => `${(k.bytes / MB).toFixed(2).padStart(9)} MB ${String(k.count).padStart(9)}  ${name}${extra}`;

function main(): void {
  const [first, second] = process.argv.slice(2);
  if (!first) {
    process.stderr.write('usage: tsx bench/heap-summary.ts before.heapsnapshot [after.heapsnapshot]\n');
    process.exit(2);
  }
  const a = summarise(first);
  const total = (m: Map<string, Kind>) => [...m.values()].reduce((t, k) => t + k.bytes, 0);
  if (!second) {
    process.stdout.write(`${first}: ${(total(a) / MB).toFixed(1)} MB in objects\n`);
    for (const [name, k] of [...a].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, 40)) process.stdout.write(`${row(name, k)}\n`);
    return;
  }
  const b = summarise(second);
  process.stdout.write(`${first}: ${(total(a) / MB).toFixed(1)} MB → ${second}: ${(total(b) / MB).toFixed(1)} MB in objects\nlargest growth (bytes, count):\n`);
  const growth = [...b].map(([name, k]) => {
    const before = a.get(name) ?? { count: 0, bytes: 0 };
    return [name, { bytes: k.bytes - before.bytes, count: k.count - before.count }] as [string, Kind];
  });
  for (const [name, k] of growth.sort((x, y) => y[1].bytes - x[1].bytes).slice(0, 40)) process.stdout.write(`${row(name, k)}\n`);
}

main();
