// A synthetic .cpuprofile of a chosen size, seeded (the same bytes every time): a server's
// shapes — thousands of functions in hundreds of files (app, node_modules, node: internals),
// deep stacks (up to ~90 frames), recursion (a function calling itself for a while), hot paths
// sampled far more than cold ones, positionTicks on sampled nodes, ~1 ms time deltas.
//
//   node --import tsx bench/gen-profile.ts out.cpuprofile [MB]
import * as fs from 'node:fs';

/** mulberry32: a small seeded PRNG (the same profile every run). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Fn {
  name: string;
  url: string;
  scriptId: number;
  line: number;
  col: number;
  callees: number[];
  recursive: boolean;
}

const WORDS = [
  'user',
  'order',
  'cart',
  'session',
  'token',
  'price',
  'render',
  'query',
  'parse',
  'validate',
  'route',
  'cache',
  'stream',
  'buffer',
  'json',
  'auth',
  'hash',
  'template',
  'field',
  'schema',
];

function functions(rand: () => number, count: number): Fn[] {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  const files: Array<{ url: string; id: number }> = [];
  for (let i = 0; i < 400; i++) {
    const kind = rand();
    const url =
      kind < 0.4
        ? `file:///srv/app/src/${pick(WORDS)}/${pick(WORDS)}-${i}.js`
        : kind < 0.85
          ? `file:///srv/app/node_modules/${pick(WORDS)}-${pick(WORDS)}/lib/${pick(WORDS)}${i}.js`
          : `node:internal/${pick(['http', 'streams', 'url', 'crypto', 'timers', 'fs'])}/${pick(WORDS)}${i}`;
    files.push({ url, id: i + 10 });
  }
  const fns: Fn[] = [];
  for (let i = 0; i < count; i++) {
    const f = pick(files);
    const name = rand() < 0.1 ? '' : `${pick(WORDS)}${pick(WORDS)[0].toUpperCase()}${pick(WORDS).slice(1)}${i}`;
    fns.push({
      name,
      url: f.url,
      scriptId: f.id,
      line: Math.floor(rand() * 800),
      col: Math.floor(rand() * 60),
      callees: [],
      recursive: rand() < 0.05,
    });
  }
  for (const f of fns)
    for (let k = 2 + Math.floor(rand() * 5); k > 0; k--) f.callees.push(Math.floor(rand() ** 2 * count));
  return fns;
}

/** Writes a profile of about `targetBytes` to `file`; returns its node and sample counts. */
export function generateProfile(
  file: string,
  targetBytes: number,
  seed = 42,
): { nodes: number; samples: number; bytes: number } {
  const rand = seededRandom(seed);
  const fns = functions(rand, 8000);
  // The call tree as a trie: node = (parent, function). Root = (program).
  const parent: number[] = [-1];
  const fnOf: number[] = [-1];
  const childKey = new Map<string, number>();
  const children: number[][] = [[]];
  const hits: number[] = [0];
  const child = (p: number, f: number): number => {
    const key = `${p}:${f}`;
    let c = childKey.get(key);
    if (c === undefined) {
      c = parent.length;
      parent.push(p);
      fnOf.push(f);
      children.push([]);
      hits.push(0);
      children[p].push(c);
      childKey.set(key, c);
    }
    return c;
  };
  const specials = ['(program)', '(idle)', '(garbage collector)'].map((name) => {
    const f = fns.length;
    fns.push({ name, url: '', scriptId: 0, line: -1, col: -1, callees: [], recursive: false });
    return child(0, f);
  });
  // Stacks: a walk down callees; recursive functions repeat themselves 2–30 times.
  const stacks: number[] = [];
  const nodeBudget = Math.round((targetBytes * 0.35) / 190); // ~190 bytes of JSON per node
  while (parent.length < nodeBudget) {
    let n = child(0, Math.floor(rand() * 40)); // a few entry points (handlers)
    const depth = 5 + Math.floor(rand() ** 0.7 * 85);
    for (let d = 0; d < depth; d++) {
      const f = fns[fnOf[n]];
      if (f.recursive && rand() < 0.9) {
        for (let r = 2 + Math.floor(rand() * 28); r > 0 && d < depth; r--, d++) n = child(n, fnOf[n]);
      }
      n = child(n, f.callees[Math.floor(rand() * f.callees.length)]);
    }
    stacks.push(n);
  }
  // Samples: the rest of the bytes (~10 bytes per sample: id + delta), skewed to a few hot stacks.
  const sampleCount = Math.round((targetBytes * 0.65) / 10.2);
  const out = fs.openSync(file, 'w');
  let bytes = 0;
  let buf = '';
  const write = (s: string): void => {
    buf += s;
    if (buf.length > 1 << 20) flush();
  };
  const flush = (): void => {
    bytes += fs.writeSync(out, buf);
    buf = '';
  };
  // A walk with the locality of real profiles: consecutive samples mostly share their stack
  // (the same function still running, a call returning or made), now and then another request.
  const samples = new Int32Array(sampleCount);
  let n = stacks[0];
  for (let s = 0; s < sampleCount; s++) {
    const r = rand();
    if (r < 0.55) {
      // still in the same function
    } else if (r < 0.7 && children[n].length > 0) {
      n = children[n][Math.floor(rand() * children[n].length)];
    } else if (r < 0.9 && parent[n] > 0) {
      n = parent[n];
      if (rand() < 0.5) n = children[n][Math.floor(rand() * children[n].length)];
    } else if (r < 0.93) {
      n = specials[Math.floor(rand() * specials.length)];
    } else {
      n = stacks[Math.floor(rand() ** 3 * stacks.length)];
    }
    samples[s] = n;
    hits[n]++;
  }
  const positions = new Map<number, Map<number, number>>();
  for (let s = 0; s < sampleCount; s += 7) {
    const n = samples[s];
    const f = fns[fnOf[n]];
    if (!f || f.url === '') continue;
    const line = f.line + 1 + Math.floor(rand() * 12);
    let m = positions.get(n);
    if (!m) positions.set(n, (m = new Map()));
    m.set(line, (m.get(line) ?? 0) + 1);
  }
  write('{"nodes":[');
  for (let n = 0; n < parent.length; n++) {
    const f = fns[fnOf[n]];
    const cf = f
      ? { functionName: f.name, scriptId: String(f.scriptId), url: f.url, lineNumber: f.line, columnNumber: f.col }
      : { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 };
    const node: Record<string, unknown> = { id: n + 1, callFrame: cf, hitCount: hits[n] };
    if (children[n].length) node.children = children[n].map((c) => c + 1);
    const pt = positions.get(n);
    if (pt) node.positionTicks = [...pt].map(([line, ticks]) => ({ line, ticks }));
    write(`${n ? ',' : ''}${JSON.stringify(node)}`);
  }
  const startTime = 1_000_000_000;
  let t = startTime;
  write(`],"startTime":${startTime},"samples":[`);
  for (let s = 0; s < sampleCount; s++) write(`${s ? ',' : ''}${samples[s] + 1}`);
  write('],"timeDeltas":[');
  for (let s = 0; s < sampleCount; s++) {
    const d = 900 + Math.floor(rand() * 400);
    t += d;
    write(`${s ? ',' : ''}${d}`);
  }
  write(`],"endTime":${t + 1000}}`);
  flush();
  fs.closeSync(out);
  return { nodes: parent.length, samples: sampleCount, bytes };
}

if (process.argv[1] && /gen-profile\.ts$/.test(process.argv[1])) {
  const mb = Number(process.argv[3] ?? 100);
  const r = generateProfile(process.argv[2], mb * 1e6);
  process.stdout.write(`${JSON.stringify(r)}\n`);
}
