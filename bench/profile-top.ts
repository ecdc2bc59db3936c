/**
 * The top frames of a V8 CPU profile (`.cpuprofile`, as written by `node --cpu-prof` and by
 * `BENCH_CPU_PROF=1 npm run bench`): self time and inclusive time per function, and self time
 * per package (each `node_modules` package, `node:` internals, the project's own files).
 *
 *   npx tsx bench/profile-top.ts [file.cpuprofile …] [--top=25] [--from=<s>] [--to=<s>] [--match=<text>] [--timeline]
 *
 * Without a file, the largest profile in bench/results/prof/ (the API's main thread). `--from`
 * and `--to` keep the samples between those seconds of the profile (skip the start-up and the
 * idle tail); `--match` keeps only the samples whose stack has a frame whose name or file
 * contains the text (e.g. `--match=acceptSignatures`). Percentages are of the busy time
 * kept (idle samples excluded), which is also printed. `--timeline` adds the busy share of
 * each second, to find the window of a load phase.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { RESULTS } from './procs.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const TOP = Number(arg('top') ?? 25);
const FROM = arg('from') === undefined ? -Infinity : Number(arg('from')) * 1e6;
const TO = arg('to') === undefined ? Infinity : Number(arg('to')) * 1e6;
const MATCH = arg('match');
const TIMELINE = process.argv.includes('--timeline');

/** Where a frame comes from: `pkg` for node_modules/pkg (or @scope/pkg), `node:` internals, else the file under the project. */
function packageOf(url: string): string {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return 'node: (built-in modules)';
  if (url.startsWith('wasm:')) return 'wasm (tiny-secp256k1)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] as string);
  }
  const src = url.search(/\/(src|adaptors|bench)\//);
  return src >= 0 ? url.slice(src + 1) : url;
}

function frameName(f: CallFrame): string {
  if (!f.url) return f.functionName || '(anonymous)';
  const file = packageOf(f.url);
  const base = f.url.startsWith('node:') || f.url.startsWith('wasm:') ? f.url : file.includes('/') ? file : `${file}/${path.basename(f.url)}`;
  return `${f.functionName || '(anonymous)'}  ${base}:${f.lineNumber + 1}`;
}

const IDLE = new Set(['(idle)']);

function summarise(file: string): void {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Sample i lasts until sample i+1 (Chrome DevTools' convention); the last one until endTime.
  const at: number[] = [];
  let t = p.startTime;
  for (const d of p.timeDeltas) at.push((t += d));
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const pkg = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  const perSecond: number[] = [];
  for (let i = 0; i < p.samples.length; i++) {
    const when = (at[i] as number) - p.startTime;
    if (when < FROM || when > TO) continue;
    const dur = ((at[i + 1] ?? p.endTime) - (at[i] as number)) / 1000;
    const leaf = byId.get(p.samples[i] as number) as ProfileNode;
    if (IDLE.has(leaf.callFrame.functionName)) {
      idle += dur;
      continue;
    }
    const stack: CallFrame[] = [];
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) stack.push((byId.get(id) as ProfileNode).callFrame);
    if (MATCH && !stack.some((f) => f.functionName.includes(MATCH) || f.url.includes(MATCH))) continue;
    busy += dur;
    const second = Math.floor(when / 1e6);
    perSecond[second] = (perSecond[second] ?? 0) + dur;
    const leafName = frameName(leaf.callFrame);
    self.set(leafName, (self.get(leafName) ?? 0) + dur);
    const leafPkg = packageOf(leaf.callFrame.url);
    pkg.set(leafPkg, (pkg.get(leafPkg) ?? 0) + dur);
    // A recursive frame counts once per sample.
    for (const name of new Set(stack.map(frameName))) incl.set(name, (incl.get(name) ?? 0) + dur);
  }
  const pct = (ms: number) => `${((100 * ms) / busy).toFixed(1).padStart(5)}%`;
  const ms = (v: number) => `${Math.round(v).toLocaleString('en').padStart(8)} ms`;
  const table = (title: string, m: Map<string, number>, skipRoot = false) => {
    const rows = [...m]
      .filter(([k]) => !skipRoot || k !== '(root)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP);
    console.log(`\n${title}`);
    for (const [k, v] of rows) console.log(`${ms(v)} ${pct(v)}  ${k}`);
  };
  const window = `${FROM === -Infinity ? 0 : FROM / 1e6}..${TO === Infinity ? ((p.endTime - p.startTime) / 1e6).toFixed(1) : TO / 1e6} s`;
  console.log(
    `${file}\nprofile ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s; window ${window}; busy ${Math.round(busy).toLocaleString('en')} ms, idle ${Math.round(idle).toLocaleString('en')} ms${MATCH ? ` (stacks with '${MATCH}')` : ''}`,
  );
  if (TIMELINE) console.log(`\nbusy per second (ms): ${[...perSecond].map((v, i) => `${i}:${Math.round(v ?? 0)}`).join(' ')}`);
  table('self time by package', pkg);
  table('self time by function', self);
  table('inclusive time by function', incl, true);
}

const files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (files.length === 0) {
  const dir = path.join(RESULTS, 'prof');
  const found = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  if (!found[0]) throw new Error(`no .cpuprofile in ${dir}; run BENCH_CPU_PROF=1 npm run bench -- --only=ingest`);
  files.push(found[0]);
}
for (const f of files) summarise(f);
