// The fuzzer's generator and runner (test/fuzz/fuzz.test.ts drives them in child processes).
//
// A case is named by (seed, family, index): the generator derives the case's own PRNG from
// those three, so any case can be rebuilt alone (`HOTLINE_FUZZ_ONLY=family:index`). Families
// build bad `.cpuprofile` inputs from the real captures in test/fixtures or from scratch, and
// `runCase` feeds each through what the CLI and the editor run: readCpuProfile → loadSources →
// analyzeProfile in memory, and analyzeFile on a file (the loader of the custom editor), with
// every file read recorded to prove that nothing outside the root is read.
//
// The generator builds deliberately ill-typed values, hence the loose `any` below.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as zlib from 'node:zlib';
import { ProfileFormatError, readCpuProfile } from '../../src/core/profile/cpuprofile.ts';
import { analyzeProfile } from '../../src/core/analysis/analyze.ts';
import { mergeProfiles } from '../../src/core/profile/merge.ts';
import type { Analysis } from '../../src/core/analysis/model.ts';
import { analyzeFile } from '../../src/core/analyze-run/analyze-run.ts';
import { loadSources } from '../../src/core/store/sources.ts';
import { FIXTURE_NAMES, FIXTURES_DIR, relocateUrl, type RawProfile } from './fixtures.ts';

type J = any;

// ---- PRNG ---------------------------------------------------------------------------------------

export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** mulberry32: [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}

/** FNV-1a of "seed:family:index": the seed of one case. */
export function caseSeed(seed: number, family: string, index: number): number {
  let h = 0x811c9dc5;
  for (const ch of `${seed}:${family}:${index}`) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

// ---- what a case is -------------------------------------------------------------------------------

export type FuzzInput =
  /** readCpuProfile(value) → loadSources → analyzeProfile; and, when `file`, JSON text → analyzeFile. */
  | { kind: 'value'; value: unknown; root: string; note: string; file?: boolean }
  /** Bytes in a .cpuprofile file → analyzeFile. */
  | { kind: 'text'; text: string | Buffer; root: string; note: string }
  /** Each value through readCpuProfile, the accepted ones merged, the merge re-read and analyzed. */
  | { kind: 'merge'; values: unknown[]; root: string; note: string }
  /** `make` lays out a file (or not) and returns its path → analyzeFile. fs errors listed in `fsErrors` are expected. */
  | { kind: 'file'; make: (dir: string) => string; root: string; note: string; fsErrors?: string[] }
  /** The 10M-sample profile, built in memory: readCpuProfile + analyzeProfile, timed. */
  | { kind: 'huge'; samples: number; note: string };

export interface FixtureData {
  name: string;
  root: string;
  /** Relocated to the fixture folder, as loadFixture does; never mutate: clone it. */
  raw: RawProfile;
}

/**
 * A workspace of traps, made once per process:
 *
 *   <base>/ws/root/app.js, lib/util.js     real scripts
 *   <base>/ws/root/dir.js/                 a folder named like a script
 *   <base>/ws/root/link-out.js             symlink → <base>/ws/outside/secret.js
 *   <base>/ws/root/link-dir                symlink → <base>/ws/outside
 *   <base>/ws/root/link-etc                symlink → /etc/passwd
 *   <base>/ws/root/link-zero               symlink → /dev/zero
 *   <base>/ws/root/fifo.js                 a named pipe (reading it would block forever)
 *   <base>/ws/root/big.js                  17 MB (sparse): over the loader's size limit
 *   <base>/ws/root/node_modules/dep/index.js
 *   <base>/ws/root/maps/gen.js(.map)       a script with a source map that points outside
 *   <base>/ws/root-evil/secret.js          a sibling whose name has the root's as a prefix
 *   <base>/ws/outside/secret.js, secret.js.map
 */
export interface Workspace {
  root: string;
  outside: string;
  /** Text of every file outside the root: it must never show up in sources or notes' place. */
  secret: string;
  app: string;
  appLines: number;
  fifo?: string;
}

export interface GenContext {
  fixtures: FixtureData[];
  ws: Workspace;
  /** A fresh empty folder (per call). */
  newDir(): string;
}

export const SECRET = 'TOP-SECRET-9f8e7d6c';

const APP_JS = [
  "'use strict';",
  'function hot(n) {',
  '  let s = 0;',
  '  for (let i = 0; i < n; i++) s += Math.sqrt(i);',
  '  return s;',
  '}',
  'function __proto__(x) { return hot(x) + JSON.parse("1"); }',
  'const constructor = () => JSON.stringify({ a: hot(5) });',
  'const obj = { toString() { return hot(1); }, ["__proto__"]: 1, hasOwnProperty: () => hot(2) };',
  'function main() {',
  '  const zlib = require("zlib");',
  '  zlib.gzipSync("x"); require("fs").readFileSync(__filename);',
  '  return __proto__(3) + constructor() + obj.toString() + hot(7);',
  '}',
  'module.exports = { hot, obj, main };',
  '',
].join('\n');

export function makeWorkspace(base: string): Workspace {
  const ws = path.join(base, 'ws');
  const root = path.join(ws, 'root');
  const outside = path.join(ws, 'outside');
  const write = (file: string, text: string | Buffer): void => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };
  write(
    path.join(outside, 'secret.js'),
    `// ${SECRET}\nfunction secret() { return '${SECRET}'; }\n//# sourceMappingURL=secret.js.map\n`,
  );
  write(
    path.join(outside, 'secret.js.map'),
    JSON.stringify({ version: 3, sources: ['secret.ts'], sourcesContent: [SECRET], mappings: 'AAAA' }),
  );
  write(path.join(outside, 'secret.ts'), `${SECRET}\n`);
  write(path.join(ws, 'root-evil', 'secret.js'), `// ${SECRET}\n`);
  write(path.join(root, 'app.js'), APP_JS);
  write(path.join(root, 'lib', 'util.js'), 'exports.util = function util(a) { return a.map((x) => x * 2); };\n');
  write(path.join(root, 'node_modules', 'dep', 'index.js'), 'exports.workSync = function workSync() { return 1; };\n');
  fs.mkdirSync(path.join(root, 'dir.js'), { recursive: true });
  fs.mkdirSync(path.join(root, 'dir.js.map'), { recursive: true });
  // A script whose map points at the secret, both through ../ and through sourceRoot.
  write(path.join(root, 'maps', 'gen.js'), 'function g() { return 1; }\n//# sourceMappingURL=gen.js.map\n');
  write(
    path.join(root, 'maps', 'gen.js.map'),
    JSON.stringify({
      version: 3,
      sources: ['../../outside/secret.ts', '/etc/passwd', 'file:///etc/passwd'],
      mappings: 'AAAA;ACAA;ACAA',
    }),
  );
  write(
    path.join(root, 'maps', 'out.js'),
    'function o() { return 1; }\n//# sourceMappingURL=../../outside/secret.js.map\n',
  );
  write(path.join(root, 'maps', 'etc.js'), 'function e() { return 1; }\n//# sourceMappingURL=/etc/passwd\n');
  write(path.join(root, 'maps', 'self.js'), 'function s() { return 1; }\n//# sourceMappingURL=self.js\n');
  write(path.join(root, 'maps', 'dirmap.js'), 'function d() { return 1; }\n//# sourceMappingURL=../dir.js.map\n');
  write(path.join(root, 'maps', 'linkmap.js'), 'function l() { return 1; }\n//# sourceMappingURL=../link-out.js\n');
  const link = (target: string, name: string): void => {
    try {
      fs.symlinkSync(target, path.join(root, name));
    } catch {
      // no symlinks here: those cases then name a missing file
    }
  };
  link(path.join(outside, 'secret.js'), 'link-out.js');
  link(path.join(outside, 'secret.js.map'), 'link-out.js.map');
  link(outside, 'link-dir');
  link('/etc/passwd', 'link-etc');
  link('/dev/zero', 'link-zero');
  link(path.join(root, 'loop.js'), 'loop.js');
  const big = fs.openSync(path.join(root, 'big.js'), 'w');
  fs.ftruncateSync(big, 17 * 1024 * 1024);
  fs.closeSync(big);
  let fifo: string | undefined = path.join(root, 'fifo.js');
  try {
    execFileSync('mkfifo', [fifo], { stdio: 'ignore' });
  } catch {
    fifo = undefined;
  }
  return { root, outside, secret: SECRET, app: path.join(root, 'app.js'), appLines: APP_JS.split('\n').length, fifo };
}

export function loadFixtureData(): FixtureData[] {
  return FIXTURE_NAMES.map((name) => {
    const dir = path.join(FIXTURES_DIR, name);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { root: string };
    const raw = JSON.parse(fs.readFileSync(path.join(dir, 'profile.cpuprofile'), 'utf8')) as RawProfile;
    for (const node of raw.nodes) node.callFrame.url = relocateUrl(node.callFrame.url, meta.root, dir);
    return { name, root: dir, raw };
  });
}

// ---- building blocks ----------------------------------------------------------------------------

const clone = <T>(v: T): T => structuredClone(v);

interface Syn {
  name: string;
  url?: string;
  line0?: number;
  col0?: number;
  parent: number;
  ticks?: Array<[number, number]>;
}

/** A profile from a flat frame list (index 0 is (root)); samples are frame indices. */
function synth(frames: Syn[], samples: number[], deltaUs = 1000): J {
  const nodes: J[] = frames.map((f, i) => ({
    id: i + 1,
    callFrame: {
      functionName: f.name,
      scriptId: String(i),
      url: f.url ?? '',
      lineNumber: f.line0 ?? (f.url ? 0 : -1),
      columnNumber: f.col0 ?? (f.url ? 0 : -1),
    },
    hitCount: 0,
    ...(f.ticks ? { positionTicks: f.ticks.map(([line, ticks]) => ({ line, ticks })) } : {}),
  }));
  for (let i = 1; i < frames.length; i++) {
    const p = nodes[frames[i].parent];
    (p.children ??= []).push(i + 1);
  }
  for (const s of samples) nodes[s].hitCount++;
  const startTime = 5_000_000;
  return {
    nodes,
    startTime,
    endTime: startTime + (samples.length + 1) * deltaUs,
    samples: samples.map((s) => s + 1),
    timeDeltas: samples.map(() => deltaUs),
  };
}

const fileUrl = (p: string): string => pathToFileURL(p).href;

/** Values of the wrong type for any field. */
function wrongValue(rng: Rng): unknown {
  const bank: Array<() => unknown> = [
    () => '12',
    () => '',
    () => null,
    () => true,
    () => false,
    () => [],
    () => [[1]],
    () => [[[]]],
    () => ({}),
    () => ({ 0: 1, length: 1 }),
    () => 0,
    () => -1,
    () => 1.5,
    () => 'NaN',
    () => [null],
    () => ({ id: 1 }),
    () => JSON.parse('{"__proto__": {"polluted": 1}}'),
    () => JSON.parse('{"toString": 1, "valueOf": 1}'),
    () => 2 ** 53,
    () => -(2 ** 53),
    () => 1e308,
    () => '\u0000',
    () => ['1', '2'],
    () => [1, 'x', null, {}],
    () => nestedArray(rng.range(10, 2000)),
  ];
  return rng.pick(bank)();
}

function nestedArray(depth: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

const NUMBERS = [
  -5,
  -1,
  0,
  -0,
  0.5,
  1.5,
  2 ** 31,
  2 ** 32 + 1,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e300,
  -1e300,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.EPSILON,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  1e-300,
  123456789.123,
];

const NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'prototype',
  '(root)',
  '(idle)',
  '(garbage collector)',
  '(program)',
  '(anonymous)',
  '',
  ' ',
  'bound __proto__',
  'get constructor',
  'set __proto__',
  'async toString',
  'Object.prototype.__proto__',
  'a.b.constructor',
  'Sync',
  'xSync',
  'pbkdf2Sync',
  'syncBufferWrapper',
  'gzipSync',
  'readFileSync',
  '日本語の関数',
  'ƒ',
  '🔥💥',
  'עברית',
  'e\u0301',
  '\ud800',
  '\udfff\ud800',
  '\u0000',
  'a\u0000b',
  '\u2028\u2029',
  '\uFEFF',
  '\\',
  '"',
  "'`${x}`",
  '<script>alert(1)</script>',
  '%s%d%n',
  '../../etc/passwd',
  'x'.repeat(5000),
];

function mutateFixture(rng: Rng, ctx: GenContext): { p: J; fx: FixtureData } {
  const fx = rng.pick(ctx.fixtures);
  return { p: clone(fx.raw) as J, fx };
}

/** Node indices of a profile's tree: parent index per node (by the children lists as given). */
function parentIndex(p: J): number[] {
  const byId = new Map<number, number>();
  p.nodes.forEach((n: J, i: number) => byId.set(n.id, i));
  const parent = new Array<number>(p.nodes.length).fill(-1);
  p.nodes.forEach((n: J, i: number) => {
    for (const c of n.children ?? []) {
      const ci = byId.get(c);
      if (ci !== undefined) parent[ci] = i;
    }
  });
  return parent;
}

function descendants(p: J, i: number): number[] {
  const byId = new Map<number, number>();
  p.nodes.forEach((n: J, k: number) => byId.set(n.id, k));
  const out: number[] = [];
  const stack = [i];
  const seen = new Set<number>();
  while (stack.length > 0) {
    const k = stack.pop()!;
    if (seen.has(k)) continue;
    seen.add(k);
    if (k !== i) out.push(k);
    for (const c of p.nodes[k].children ?? []) {
      const ci = byId.get(c);
      if (ci !== undefined) stack.push(ci);
    }
  }
  return out;
}

function removeChild(p: J, parent: number, childId: number): void {
  const n = p.nodes[parent];
  n.children = (n.children ?? []).filter((c: number) => c !== childId);
}

/** A random path of a JSON-ish value: its container and key. */
function randomSlot(rng: Rng, root: J): { holder: J; key: string | number } | undefined {
  let holder: J = root;
  let key: string | number | undefined;
  for (let depth = 0; depth < 8; depth++) {
    const keys: Array<string | number> = Array.isArray(holder)
      ? holder.map((_: unknown, i: number) => i)
      : Object.keys(holder);
    if (keys.length === 0) break;
    const k = Array.isArray(holder) && holder.length > 50 ? rng.int(holder.length) : rng.pick(keys);
    key = k;
    const v = holder[k];
    if (typeof v !== 'object' || v === null || rng.chance(0.25)) return { holder, key: k };
    holder = v;
  }
  return key === undefined ? undefined : { holder, key };
}

// ---- the families ---------------------------------------------------------------------------------

export interface Family {
  name: string;
  /** Cases at the default total; `fixed` families keep their count whatever the total. */
  count: number;
  fixed?: boolean;
  timeoutMs?: number;
  gen(rng: Rng, ctx: GenContext, index: number): FuzzInput;
}

/** Mutations of the node graph: ids, children, roots, cycles. */
const STRUCTURE_MUTATIONS: Array<{ name: string; apply(rng: Rng, p: J): void }> = [
  {
    name: 'child id that names no node',
    apply: (rng, p) => {
      const n = rng.pick(p.nodes) as J;
      (n.children ??= []).push(rng.pick([999999, -7, 0, 2 ** 53 - 1]));
    },
  },
  {
    name: 'duplicate id',
    apply: (rng, p) => {
      const a = rng.int(p.nodes.length);
      const b = rng.int(p.nodes.length);
      p.nodes[a].id = p.nodes[b].id;
    },
  },
  {
    name: 'duplicated node',
    apply: (rng, p) => {
      p.nodes.splice(rng.int(p.nodes.length), 0, clone(rng.pick(p.nodes)));
    },
  },
  {
    name: 'cycle a→b→a',
    apply: (rng, p) => {
      const withKids = p.nodes.filter((n: J) => n.children?.length);
      if (withKids.length === 0) return;
      const a = rng.pick(withKids) as J;
      const bid: unknown = rng.pick(a.children as unknown[]);
      const b = p.nodes.find((n: J) => n.id === bid);
      if (b) (b.children ??= []).push(a.id);
    },
  },
  {
    name: 'self-loop',
    apply: (rng, p) => {
      const n = rng.pick(p.nodes) as J;
      (n.children ??= []).push(n.id);
    },
  },
  {
    name: 'long cycle (subtree detached and hung below its own leaf)',
    apply: (rng, p) => {
      const parent = parentIndex(p);
      const cands = p.nodes
        .map((_: J, i: number) => i)
        .filter((i: number) => parent[i] >= 0 && descendants(p, i).length > 0);
      if (cands.length === 0) return;
      const a = rng.pick(cands) as number;
      const below = descendants(p, a);
      removeChild(p, parent[a], p.nodes[a].id);
      const leaf = p.nodes[rng.pick(below)];
      (leaf.children ??= []).push(p.nodes[a].id);
    },
  },
  {
    name: 'two parents',
    apply: (rng, p) => {
      const a = rng.pick(p.nodes) as J;
      const b = rng.pick(p.nodes) as J;
      if (a !== b) (a.children ??= []).push(b.id);
    },
  },
  {
    name: 'child listed twice',
    apply: (rng, p) => {
      const withKids = p.nodes.filter((n: J) => n.children?.length);
      if (withKids.length) {
        const n = rng.pick(withKids) as J;
        n.children.push(n.children[0]);
      }
    },
  },
  {
    name: 'no root (the root hung below a leaf)',
    apply: (rng, p) => {
      const parent = parentIndex(p);
      const root = parent.indexOf(-1);
      const leaves = p.nodes.filter((n: J) => !n.children?.length);
      if (root >= 0 && leaves.length) (rng.pick(leaves) as J).children = [p.nodes[root].id];
    },
  },
  {
    name: 'two roots (a subtree cut off)',
    apply: (rng, p) => {
      const withKids = p.nodes.filter((n: J) => n.children?.length);
      if (withKids.length) {
        const n = rng.pick(withKids) as J;
        n.children.splice(rng.int(n.children.length), 1);
      }
    },
  },
  {
    name: 'orphan node added',
    apply: (rng, p) => {
      p.nodes.push({
        id: 777777 + rng.int(1000),
        callFrame: { functionName: 'orphan', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 },
        children: rng.chance(0.5) ? [p.nodes[0].id] : undefined,
      });
    },
  },
  {
    name: 'node removed (children dangle)',
    apply: (rng, p) => {
      p.nodes.splice(rng.int(p.nodes.length), 1);
    },
  },
  {
    name: 'all children removed',
    apply: (_rng, p) => {
      for (const n of p.nodes) delete n.children;
    },
  },
  // Valid reshapes: the reader and the analysis must not depend on node order or id values.
  {
    name: 'nodes shuffled',
    apply: (rng, p) => {
      rng.shuffle(p.nodes);
    },
  },
  {
    name: 'children reversed',
    apply: (_rng, p) => {
      for (const n of p.nodes) n.children?.reverse();
    },
  },
  {
    name: 'ids renumbered (large, negative, zero)',
    apply: (rng, p) => {
      const map = new Map<number, number>();
      const base = rng.pick([0, -(2 ** 52), 2 ** 53 - 1 - p.nodes.length * 7, 1e9]);
      p.nodes.forEach((n: J, i: number) => map.set(n.id, base + (rng.chance(0.5) ? i * 7 : -i * 3)));
      for (const n of p.nodes) {
        n.id = map.get(n.id);
        if (n.children) n.children = n.children.map((c: number) => map.get(c) ?? c);
      }
      if (p.samples) p.samples = p.samples.map((s: number) => map.get(s) ?? s);
    },
  },
  {
    name: 'subtree moved to another parent',
    apply: (rng, p) => {
      const parent = parentIndex(p);
      const cands = p.nodes.map((_: J, i: number) => i).filter((i: number) => parent[i] >= 0);
      if (!cands.length) return;
      const a = rng.pick(cands) as number;
      const forbidden = new Set([a, ...descendants(p, a)]);
      const targets = p.nodes.map((_: J, i: number) => i).filter((i: number) => !forbidden.has(i));
      if (!targets.length) return;
      removeChild(p, parent[a], p.nodes[a].id);
      (p.nodes[rng.pick(targets as number[])].children ??= []).push(p.nodes[a].id);
    },
  },
  {
    name: 'empty children arrays',
    apply: (_rng, p) => {
      for (const n of p.nodes) n.children ??= [];
    },
  },
];

const structure: Family = {
  name: 'structure',
  count: 250,
  gen(rng, ctx) {
    const { p, fx } = mutateFixture(rng, ctx);
    const names: string[] = [];
    for (let k = rng.range(1, 3); k > 0; k--) {
      const m = rng.pick(STRUCTURE_MUTATIONS);
      m.apply(rng, p);
      names.push(m.name);
    }
    return { kind: 'value', value: p, root: fx.root, note: `${fx.name}: ${names.join(' + ')}`, file: true };
  },
};

/** Delete, duplicate, retype fields; unknown fields; duplicate keys in the JSON text. */
const fields: Family = {
  name: 'fields',
  count: 150,
  gen(rng, ctx) {
    const { p, fx } = mutateFixture(rng, ctx);
    const what = rng.int(7);
    const node = rng.pick(p.nodes) as J;
    let note = '';
    switch (what) {
      case 0: {
        const k = rng.pick(['nodes', 'startTime', 'endTime', 'samples', 'timeDeltas']);
        delete p[k];
        note = `top-level ${k} deleted`;
        break;
      }
      case 1: {
        const k = rng.pick(['id', 'callFrame', 'hitCount', 'children', 'positionTicks']);
        delete node[k];
        note = `node ${k} deleted`;
        break;
      }
      case 2: {
        const k = rng.pick(['functionName', 'scriptId', 'url', 'lineNumber', 'columnNumber']);
        delete node.callFrame[k];
        note = `callFrame ${k} deleted`;
        break;
      }
      case 3: {
        const k = rng.pick(['functionName', 'scriptId', 'url', 'lineNumber', 'columnNumber']);
        node.callFrame[k] = wrongValue(rng);
        note = `callFrame ${k} retyped`;
        break;
      }
      case 4: {
        p[rng.pick(['extra', 'title', 'profile', '$schema', 'nodes2'])] = wrongValue(rng);
        node.extra = wrongValue(rng);
        node.callFrame.codeType = 'JS';
        note = 'unknown fields';
        break;
      }
      case 5: {
        // The same key twice in the text: JSON.parse keeps the last one.
        const text = JSON.stringify(p);
        const key = rng.pick(['"id":', '"children":', '"url":', '"lineNumber":', '"samples":', '"nodes":']);
        const at = text.indexOf(key, rng.int(text.length));
        const dup = at < 0 ? text : `${text.slice(0, at)}${key}${JSON.stringify(wrongValue(rng))},${text.slice(at)}`;
        return { kind: 'text', text: dup, root: fx.root, note: `${fx.name}: duplicate key ${key}` };
      }
      default: {
        const k = rng.pick(['positionTicks', 'children', 'samples', 'timeDeltas']);
        if (k === 'positionTicks' && node.positionTicks?.length) node.positionTicks.push(clone(node.positionTicks[0]));
        else if (k === 'children' && node.children?.length) node.children = [...node.children, ...node.children];
        else if (k === 'samples' && p.samples) p.samples = [...p.samples, ...p.samples];
        else if (k === 'timeDeltas' && p.timeDeltas) p.timeDeltas = [...p.timeDeltas, ...p.timeDeltas];
        note = `${k} duplicated`;
      }
    }
    return { kind: 'value', value: p, root: fx.root, note: `${fx.name}: ${note}`, file: true };
  },
};

/** JSON text cut, spliced and corrupted at random offsets. */
const truncated: Family = {
  name: 'truncated',
  count: 150,
  gen(rng, ctx) {
    const fx = rng.pick(ctx.fixtures);
    let text = rng.chance(0.5) ? JSON.stringify(fx.raw) : JSON.stringify(fx.raw, null, rng.pick([1, 2, '\t']));
    const how = rng.int(6);
    const at = rng.int(text.length + 1);
    let note: string;
    if (how <= 2) {
      text = text.slice(0, at);
      note = `cut at ${at}`;
    } else if (how === 3) {
      const b = at + rng.int(200);
      text = text.slice(0, at) + text.slice(b);
      note = `bytes ${at}..${b} removed`;
    } else if (how === 4) {
      text =
        text.slice(0, at) +
        rng.pick(['"', '\\', '\\u12', '{', ']', ',', '\u0000', 'NaN', '-', '1e', '\ud800', '}}}}']) +
        text.slice(at);
      note = `junk inserted at ${at}`;
    } else {
      text =
        text.slice(0, at) +
        rng.pick(['', ' ', '\n']) +
        text.slice(at).replace(/[0-9]/, rng.pick(['x', '-', '.', 'e9999']));
      note = `a digit replaced after ${at}`;
    }
    return { kind: 'text', text, root: fx.root, note: `${fx.name}: ${note}` };
  },
};

/** Wrong types at random places, anywhere in the document. */
const types: Family = {
  name: 'types',
  count: 150,
  gen(rng, ctx) {
    const { p, fx } = mutateFixture(rng, ctx);
    if (rng.chance(0.05))
      return {
        kind: 'value',
        value: wrongValue(rng),
        root: fx.root,
        note: 'the whole document is a wrong type',
        file: true,
      };
    const changed: string[] = [];
    for (let k = rng.range(1, 5); k > 0; k--) {
      const slot = randomSlot(rng, p);
      if (!slot) continue;
      slot.holder[slot.key] = wrongValue(rng);
      changed.push(String(slot.key));
    }
    return { kind: 'value', value: p, root: fx.root, note: `${fx.name}: retyped ${changed.join(', ')}`, file: true };
  },
};

/** NaN, Infinity, huge, negative, unsafe and fractional numbers in every numeric field. */
const numbers: Family = {
  name: 'numbers',
  count: 150,
  gen(rng, ctx) {
    const { p, fx } = mutateFixture(rng, ctx);
    const num = (): number => rng.pick(NUMBERS);
    const node = rng.pick(p.nodes) as J;
    const what = rng.int(12);
    let note: string;
    switch (what) {
      case 0: {
        const v = num();
        const i = rng.int(p.timeDeltas.length);
        p.timeDeltas[i] = v;
        note = `timeDeltas[${i}] = ${v}`;
        break;
      }
      case 1: {
        const v = rng.pick([1e300, Number.MAX_VALUE, -1e300, 1e200, 2 ** 53]);
        p.timeDeltas = p.timeDeltas.map(() => v);
        note = `every delta ${v}`;
        break;
      }
      case 2: {
        const t = p.startTime;
        p.startTime = p.endTime;
        p.endTime = t;
        note = 'startTime > endTime';
        break;
      }
      case 3: {
        p.startTime = num();
        p.endTime = num();
        note = `times ${p.startTime}..${p.endTime}`;
        break;
      }
      case 4: {
        node.callFrame.lineNumber = num();
        note = `lineNumber ${node.callFrame.lineNumber} (${node.callFrame.url})`;
        break;
      }
      case 5: {
        node.callFrame.columnNumber = num();
        node.callFrame.lineNumber = rng.pick([-5, -1, 2 ** 53 - 1, node.callFrame.lineNumber]);
        note = `position ${node.callFrame.lineNumber}:${node.callFrame.columnNumber}`;
        break;
      }
      case 6: {
        // Workspace frames at a negative or huge line: with a source map these go through it.
        const user = p.nodes.filter(
          (n: J) => n.callFrame.url.startsWith('file:') && !n.callFrame.url.includes('node_modules'),
        );
        const v = rng.pick([-5, -1, -2, 2 ** 53 - 1, 2 ** 31, 1e9]);
        for (const n of user) if (rng.chance(0.5)) n.callFrame.lineNumber = v;
        note = `workspace frames at line ${v}`;
        break;
      }
      case 7: {
        const ticks = node.positionTicks ?? (node.positionTicks = [{ line: 1, ticks: 1 }]);
        const t = rng.pick(ticks) as J;
        if (rng.chance(0.5)) t.line = rng.pick([0, -3, 2 ** 53 - 1, 2 ** 32, 1.5, ...NUMBERS]);
        else t.ticks = rng.pick([-1, 0, 2 ** 53 - 1, 1e300, 0.5, ...NUMBERS]);
        note = `positionTick {line ${t.line}, ticks ${t.ticks}}`;
        break;
      }
      case 8: {
        // Huge positionTicks on many workspace nodes: sums that leave the safe integers.
        const v = rng.pick([2 ** 53 - 1, 2 ** 52, 1e15]);
        for (const n of p.nodes) if (n.positionTicks) for (const t of n.positionTicks) t.ticks = v;
        note = `every position tick ${v}`;
        break;
      }
      case 9: {
        // Old format (hit counts only) with huge hit counts.
        const v = rng.pick([2 ** 53 - 1, 2 ** 31, 1e9, 5e7]);
        delete p.samples;
        delete p.timeDeltas;
        if (rng.chance(0.3)) {
          p.samples = [];
          p.timeDeltas = [];
        }
        node.hitCount = v;
        if (rng.chance(0.5)) for (const n of p.nodes) n.hitCount = v;
        note = `hit counts ${v}, no samples`;
        break;
      }
      case 10: {
        node.hitCount = rng.pick([-1, 1.5, 2 ** 53, Number.NaN, 2 ** 53 - 1]);
        note = `hitCount ${node.hitCount} (samples kept)`;
        break;
      }
      default: {
        const v = num();
        const old = node.id;
        node.id = v;
        note = `id ${old} → ${v}`;
      }
    }
    return { kind: 'value', value: p, root: fx.root, note: `${fx.name}: ${note}`, file: true };
  },
};

/** samples and timeDeltas that disagree with each other or with the nodes. */
const samples: Family = {
  name: 'samples',
  count: 60,
  gen(rng, ctx) {
    const { p, fx } = mutateFixture(rng, ctx);
    const what = rng.int(10);
    const ids = p.nodes.map((n: J) => n.id);
    const notes = [
      'a sample names a missing node',
      'deltas longer',
      'deltas shorter',
      'no deltas',
      'no samples, deltas kept',
      'samples empty',
      'every sample on the root',
      'samples of one node only',
      'samples not an array',
      'sample ids as strings',
    ];
    switch (what) {
      case 0:
        p.samples[rng.int(p.samples.length)] = rng.pick([424242, -1, 0, 2 ** 53, 1.5]);
        break;
      case 1:
        p.timeDeltas.push(1000, 1000);
        break;
      case 2:
        p.timeDeltas.length = rng.int(p.timeDeltas.length);
        break;
      case 3:
        delete p.timeDeltas;
        break;
      case 4:
        delete p.samples;
        break;
      case 5:
        p.samples = [];
        if (rng.chance(0.5)) p.timeDeltas = [];
        break;
      case 6:
        p.samples = p.samples.map(() => ids[parentIndex(p).indexOf(-1)]);
        break;
      case 7: {
        const one = rng.pick(ids);
        p.samples = p.samples.map(() => one);
        break;
      }
      case 8:
        p.samples = rng.pick([{}, 'x', 5, { length: 3 }]);
        break;
      default:
        p.samples = p.samples.map(String);
    }
    return { kind: 'value', value: p, root: fx.root, note: `${fx.name}: ${notes[what]}`, file: true };
  },
};

/** Unicode and prototype-ish names as function names, URLs, script ids and JSON keys. */
const names: Family = {
  name: 'names',
  count: 100,
  gen(rng, ctx) {
    const useWs = rng.chance(0.4);
    const { p, fx } = mutateFixture(rng, ctx);
    const root = useWs ? ctx.ws.root : fx.root;
    const notes: string[] = [];
    for (let k = rng.range(1, 6); k > 0; k--) {
      const node = rng.pick(p.nodes) as J;
      const name = rng.pick(NAMES);
      const where = rng.int(5);
      if (where === 0) node.callFrame.functionName = name;
      else if (where === 1)
        node.callFrame.url = useWs
          ? fileUrl(path.join(ctx.ws.root, `${name.slice(0, 100).replaceAll('\u0000', '')}.js`))
          : name;
      else if (where === 2)
        node.callFrame.scriptId = rng.chance(0.5)
          ? name
          : JSON.parse(
              rng.pick([
                '{"toString": 1}',
                '{"toString": 1, "valueOf": 1}',
                '[{"toString": 1}]',
                '{}',
                '[]',
                'null',
                '{"__proto__": null}',
              ]),
            );
      else if (where === 3 && useWs) {
        node.callFrame.url = fileUrl(ctx.ws.app);
        node.callFrame.lineNumber = rng.int(ctx.ws.appLines);
        node.callFrame.columnNumber = rng.int(40);
        node.callFrame.functionName = name;
      } else node.callFrame.functionName = `${name}.${rng.pick(NAMES)}`;
      notes.push(
        `${['functionName', 'url', 'scriptId', 'app.js frame', 'dotted name'][where]} ${JSON.stringify(name).slice(0, 40)}`,
      );
    }
    if (rng.chance(0.4)) {
      // "__proto__" as a JSON key (an own property after JSON.parse) at every level.
      let text = JSON.stringify(p);
      text = text.replace(
        /^\{/,
        '{"__proto__":{"polluted":"top","nodes":[]},"constructor":{"prototype":{"polluted":1}},',
      );
      text = text.replace(/"callFrame":\{/, '"callFrame":{"__proto__":{"polluted":"frame","functionName":"x"},');
      text = text.replace(/\{"id":/, '{"__proto__":{"polluted":"node","id":1},"id":');
      return {
        kind: 'value',
        value: JSON.parse(text),
        root,
        note: `${fx.name}: ${notes.join('; ')}; __proto__ keys`,
        file: true,
      };
    }
    return { kind: 'value', value: p, root, note: `${fx.name}: ${notes.join('; ')}`, file: true };
  },
};

/** URLs that are not files, and file: URLs that try to leave the root. Every read is checked. */
function urlBank(ws: Workspace): string[] {
  const r = ws.root;
  const u = fileUrl(r);
  return [
    'file:///etc/passwd',
    'file:///etc/shadow',
    'file:///proc/self/environ',
    'file:///dev/zero',
    'file:///dev/stdin',
    'file:///',
    `${u}/../outside/secret.js`,
    `${u}/%2e%2e/outside/secret.js`,
    `${u}/%2E%2E/%2E%2E/ws/outside/secret.js`,
    `${u}/a%2F..%2F..%2Foutside%2Fsecret.js`,
    `${u}/link-out.js`,
    `${u}/link-dir/secret.js`,
    `${u}/link-etc`,
    `${u}/link-zero`,
    `${u}/loop.js`,
    `${u}/dir.js`,
    `${u}`,
    `${u}/`,
    `${u}-evil/secret.js`,
    `${u}/big.js`,
    `${u}/node_modules/dep/index.js`,
    `${u}/app.js?x=1#frag`,
    `${u}/app.js`,
    `${u}/lib/util.js`,
    `${u}/maps/gen.js`,
    `${u}/maps/out.js`,
    `${u}/maps/etc.js`,
    `${u}/maps/self.js`,
    `${u}/maps/dirmap.js`,
    `${u}/maps/linkmap.js`,
    `${u}/missing.js`,
    `${u}/%00.js`,
    `${u}/app.js%00.txt`,
    ...(ws.fifo ? [fileUrl(ws.fifo)] : []),
    `${r}/../outside/secret.js`,
    `${r}/link-out.js`,
    '/etc/passwd',
    `${r}/app.js`,
    'app.js',
    '../outside/secret.js',
    './app.js',
    '~/.ssh/id_rsa',
    'http://example.com/app.js',
    'https://127.0.0.1:9229/app.js',
    'data:text/javascript,function x(){}',
    'node:fs',
    'node:internal/fs/utils',
    'internal/fs/utils',
    'evalmachine.<anonymous>',
    'webpack:///./src/x.js',
    'file://remotehost/etc/passwd',
    'file://localhost/etc/passwd',
    `file://localhost${r}/app.js`,
    'file:',
    'file://',
    'FILE:///etc/passwd',
    `FILE://${r}/app.js`,
    'file:///C:/Windows/win.ini',
    'file:\\\\server\\share\\x.js',
    'javascript:alert(1)',
    'blob:null/1',
    'chrome-extension://abc/x.js',
    ' ',
    '\u0000',
    'file:///%',
    'file:///%E0%A4%A',
    `${u}/%E0%A4%A.js`,
  ];
}

const urls: Family = {
  name: 'urls',
  count: 150,
  gen(rng, ctx) {
    const bank = urlBank(ctx.ws);
    const frames: Syn[] = [
      { name: '(root)', parent: -1 },
      { name: 'main', url: fileUrl(ctx.ws.app), line0: 9, col0: 13, parent: 0 },
    ];
    const chosen: string[] = [];
    for (let k = rng.range(2, 8); k > 0; k--) {
      const url = rng.pick(bank);
      chosen.push(url);
      frames.push({
        name: rng.pick(['g', 'readFileSync', '', 'hot', 'workSync', 'secret']),
        url,
        line0: rng.pick([-1, 0, 1, 3, 1e6]),
        col0: rng.pick([0, 5, -1]),
        parent: rng.int(frames.length),
        ticks: rng.chance(0.5) ? [[rng.range(1, 20), rng.range(1, 5)]] : undefined,
      });
    }
    const samples = Array.from({ length: rng.range(5, 60) }, () => rng.int(frames.length));
    return {
      kind: 'value',
      value: synth(frames, samples),
      root: ctx.ws.root,
      note: `urls ${chosen.map((c) => c.slice(0, 80)).join(' | ')}`,
      file: true,
    };
  },
};

/** Valid-but-odd profiles: each must analyze to a sane result (or a typed error). */
const ODD: Array<{ name: string; make(ctx: GenContext, rng: Rng): J }> = [
  {
    name: 'no samples, hit counts only',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      delete p.samples;
      delete p.timeDeltas;
      return p;
    },
  },
  {
    name: 'no samples and no hits',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      delete p.samples;
      delete p.timeDeltas;
      for (const n of p.nodes) n.hitCount = 0;
      return p;
    },
  },
  {
    name: 'samples and deltas empty',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      p.samples = [];
      p.timeDeltas = [];
      return p;
    },
  },
  {
    name: 'only (root), no samples',
    make: () => ({
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 } },
      ],
      startTime: 0,
      endTime: 0,
    }),
  },
  { name: 'only (root), sampled', make: () => synth([{ name: '(root)', parent: -1 }], [0, 0, 0]) },
  {
    name: 'only (idle)',
    make: () =>
      synth(
        [
          { name: '(root)', parent: -1 },
          { name: '(idle)', parent: 0 },
        ],
        [1, 1, 1, 1],
      ),
  },
  { name: 'only (idle) as the root', make: () => synth([{ name: '(idle)', parent: -1 }], [0, 0]) },
  {
    name: 'only (garbage collector)',
    make: () =>
      synth(
        [
          { name: '(root)', parent: -1 },
          { name: '(garbage collector)', parent: 0 },
        ],
        [1, 1],
      ),
  },
  {
    name: 'zero duration',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      p.endTime = p.startTime;
      p.timeDeltas = p.timeDeltas.map(() => 0);
      return p;
    },
  },
  {
    name: 'zero duration, one sample',
    make: () => {
      const p = synth(
        [
          { name: '(root)', parent: -1 },
          { name: 'f', parent: 0 },
        ],
        [1],
      );
      p.endTime = p.startTime;
      p.timeDeltas = [0];
      return p;
    },
  },
  {
    name: 'single sample',
    make: (ctx) =>
      synth(
        [
          { name: '(root)', parent: -1 },
          { name: 'main', url: fileUrl(ctx.ws.app), line0: 9, col0: 13, parent: 0 },
        ],
        [1],
      ),
  },
  {
    name: 'samples without deltas',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      delete p.timeDeltas;
      return p;
    },
  },
  {
    name: 'all deltas zero',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      p.timeDeltas = p.timeDeltas.map(() => 0);
      return p;
    },
  },
  {
    name: 'all deltas negative',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      p.timeDeltas = p.timeDeltas.map(() => -1000);
      return p;
    },
  },
  { name: 'wrapped in {profile}', make: (ctx, rng) => ({ profile: clone(rng.pick(ctx.fixtures).raw), title: 'x' }) },
  {
    name: 'root is not (root)',
    make: (ctx) =>
      synth(
        [
          { name: 'main', url: fileUrl(ctx.ws.app), line0: 9, col0: 13, parent: -1 },
          { name: 'hot', url: fileUrl(ctx.ws.app), line0: 1, col0: 12, parent: 0, ticks: [[4, 3]] },
        ],
        [1, 1, 0],
      ),
  },
  {
    name: 'nodes in reverse order',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      p.nodes.reverse();
      return p;
    },
  },
  {
    name: 'positionTicks empty, zero ticks',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      for (const n of p.nodes) n.positionTicks = rng.chance(0.5) ? [] : [{ line: 1, ticks: 0 }];
      return p;
    },
  },
  {
    name: 'app.js frames with source, recursion',
    make: (ctx) => {
      const app = fileUrl(ctx.ws.app);
      const frames: Syn[] = [
        { name: '(root)', parent: -1 },
        { name: 'main', url: app, line0: 9, col0: 13, parent: 0 },
      ];
      for (let i = 0; i < 50; i++)
        frames.push({
          name: rng0(i),
          url: app,
          line0: [1, 6, 7, 8][i % 4],
          col0: [12, 18, 20, 14][i % 4],
          parent: frames.length - 1,
          ticks: [[1 + (i % 15), 1]],
        });
      frames.push(
        { name: 'gzipSync', url: 'node:zlib', line0: 3, col0: 0, parent: frames.length - 1 },
        { name: 'readFileSync', url: 'node:fs', line0: 3, col0: 0, parent: 1 },
      );
      return synth(
        frames,
        Array.from({ length: 200 }, (_, i) => (i * 7) % frames.length),
      );
    },
  },
  {
    name: 'huge start and end times (2^60 µs), a normal span',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      const span = p.endTime - p.startTime;
      p.startTime = 2 ** 60;
      p.endTime = 2 ** 60 + span;
      return p;
    },
  },
  {
    name: 'negative start and end times',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      const span = p.endTime - p.startTime;
      p.startTime = -1e12;
      p.endTime = -1e12 + span;
      return p;
    },
  },
];
const rng0 = (i: number): string => ['hot', '__proto__', 'constructor', 'toString'][i % 4];

const odd: Family = {
  name: 'odd',
  count: 60,
  gen(rng, ctx, index) {
    const o = ODD[index % ODD.length];
    const useWs = o.name.includes('app.js') || o.name === 'single sample' || o.name === 'root is not (root)';
    return {
      kind: 'value',
      value: o.make(ctx, rng),
      root: useWs ? ctx.ws.root : rng.pick(ctx.fixtures).root,
      note: o.name,
      file: true,
    };
  },
};

/** Profiles merged as the segments of a run are: the merge of accepted profiles must be accepted. */
const merge: Family = {
  name: 'merge',
  count: 50,
  gen(rng, ctx) {
    const values: unknown[] = [];
    const notes: string[] = [];
    for (let k = rng.range(2, 4); k > 0; k--) {
      const { p, fx } = mutateFixture(rng, ctx);
      const m = rng.pick([...STRUCTURE_MUTATIONS.slice(-5), ...STRUCTURE_MUTATIONS.slice(0, 2)]);
      if (rng.chance(0.6)) m.apply(rng, p);
      if (rng.chance(0.2)) {
        delete p.samples;
        delete p.timeDeltas;
      }
      values.push(p);
      notes.push(`${fx.name}${m ? `/${m.name}` : ''}`);
    }
    return { kind: 'merge', values, root: rng.pick(ctx.fixtures).root, note: notes.join(' + ') };
  },
};

/** Maps and scripts of the workspace that the loader reads: corrupt, hostile, pointing outside. */
const sourcemaps: Family = {
  name: 'sourcemaps',
  count: 80,
  gen(rng, ctx) {
    const root = ctx.newDir();
    const ts = path.join(root, 'src', 'hot.ts');
    fs.mkdirSync(path.dirname(ts), { recursive: true });
    fs.writeFileSync(
      ts,
      'export function hot(n: number): number {\n  let s = 0;\n  for (let i = 0; i < n; i++) s += i;\n  return s;\n}\n',
    );
    const genJs = [
      '"use strict";',
      'function hot(n) {',
      '    let s = 0;',
      '    for (let i = 0; i < n; i++) s += i;',
      '    return s;',
      '}',
      'function main() { return JSON.stringify(hot(3)); }',
    ];
    const maps: Array<() => string> = [
      () => 'null',
      () => '[]',
      () => '123',
      () => '"str"',
      () => '{}',
      () => '{"version":3}',
      () => 'not json',
      () => JSON.stringify({ version: 3, sources: [null], mappings: 'AAAA;AACA' }),
      () => JSON.stringify({ version: 3, sources: [1, {}, []], mappings: 'AAAA;AACA' }),
      () => JSON.stringify({ version: 3, sources: ['../src/hot.ts'], mappings: randomMappings(rng) }),
      () =>
        JSON.stringify({ version: 3, sources: ['../src/hot.ts'], mappings: 'AAAA;AACA;ACAA;AAAA;gggggggggggA;AAAA' }),
      () => JSON.stringify({ version: 3, sources: ['../src/hot.ts'], mappings: 'AAAA;AAAZ;AAAZ;AAAZ' }),
      () => JSON.stringify({ version: 3, sources: ['../src/hot.ts'], mappings: 'AAAA;AEAA;AEAA;AEAA' }),
      () => JSON.stringify({ version: 3, sources: ['../src/hot.ts'], mappings: 'AAAA;AAAA,ZZZZ;;;!!!' }),
      () => JSON.stringify({ version: 3, sources: ['../src/hot.ts'], mappings: 'AAAA;AAAAA;AAAAAAAAAAA;A' }),
      () => JSON.stringify({ version: 3, sources: ['../../../../../../etc/passwd'], mappings: 'AAAA;AACA' }),
      () => JSON.stringify({ version: 3, sources: ['/etc/passwd', 'file:///etc/shadow'], mappings: 'AAAA;AACA;ACAA' }),
      () => JSON.stringify({ version: 3, sourceRoot: '/etc', sources: ['passwd'], mappings: 'AAAA;AACA' }),
      () => JSON.stringify({ version: 3, sourceRoot: ctx.ws.outside, sources: ['secret.ts'], mappings: 'AAAA;AACA' }),
      () =>
        JSON.stringify({
          version: 3,
          sources: ['../src/hot.ts', '../src/missing.ts', '../src'],
          sourcesContent: [null, 5],
          mappings: 'AAAA;AACA;ACAA;ACAA',
        }),
      () =>
        JSON.stringify({
          version: 3,
          sources: ['../src/hot.ts'],
          sourcesContent: [{ x: 1 }],
          names: [null, 5],
          mappings: 'AAAAA;AACAC',
        }),
      () =>
        JSON.stringify({
          version: 3,
          sections: [
            { offset: { line: 0, column: 0 }, map: { version: 3, sources: ['/etc/passwd'], mappings: 'AAAA' } },
          ],
        }),
      () => JSON.stringify({ version: 3, sources: ['../src/hot.ts'], mappings: 'AAAA'.repeat(10000) }),
      () =>
        JSON.stringify({
          version: 3,
          file: '__proto__',
          sources: ['__proto__', 'constructor'],
          sourcesContent: ['x', 'y'],
          mappings: 'AAAA;ACAA',
        }),
    ];
    const mapText = rng.pick(maps)();
    const ref = rng.pick([
      'gen.js.map',
      'gen.js.map',
      'gen.js.map',
      `data:application/json;base64,${Buffer.from(mapText).toString('base64')}`,
      `data:application/json,${encodeURIComponent(mapText)}`,
      'data:application/json;base64,!!!!',
      'data:nocomma',
      'data:application/json,%E0%A4%A',
      '%E0%A4%A',
      '../../../../etc/passwd',
      '/etc/passwd',
      'file:///etc/passwd',
      fileUrl(path.join(ctx.ws.outside, 'secret.js.map')),
      'gen.js',
      '.',
      'file://remote/x.map',
      'file:///%',
      'dir',
    ]);
    const jsBody = rng.chance(0.1)
      ? `${'('.repeat(20000)}1${')'.repeat(20000)};`
      : rng.chance(0.1)
        ? 'function ( { garbage'
        : genJs.join('\n');
    fs.mkdirSync(path.join(root, 'dist', 'dir'), { recursive: true });
    fs.writeFileSync(path.join(root, 'dist', 'gen.js'), `${jsBody}\n//# sourceMappingURL=${ref}\n`);
    fs.writeFileSync(path.join(root, 'dist', 'gen.js.map'), mapText);
    const url = fileUrl(path.join(root, 'dist', 'gen.js'));
    const frames: Syn[] = [{ name: '(root)', parent: -1 }];
    for (let k = rng.range(2, 8); k > 0; k--) {
      frames.push({
        name: rng.pick(['hot', 'main', '', 'stringify', 'gzipSync']),
        url: rng.chance(0.8) ? url : rng.pick(['', 'node:zlib']),
        line0: rng.pick([-5, -1, 0, 1, 2, 5, 6, 1000, 2 ** 31]),
        col0: rng.pick([-1, 0, 9, 13, 1e6]),
        parent: rng.int(frames.length),
        ticks: rng.chance(0.7)
          ? [
              [rng.range(1, 9), rng.range(1, 4)],
              [rng.pick([1, 2, 3, 1000, 2 ** 53 - 1]), rng.range(0, 4)],
            ]
          : undefined,
      });
    }
    const samples = Array.from({ length: rng.range(5, 40) }, () => rng.int(frames.length));
    return {
      kind: 'value',
      value: synth(frames, samples),
      root,
      note: `map ${mapText.slice(0, 60)} via ${ref.slice(0, 60)}`,
      file: true,
    };
  },
};

function randomMappings(rng: Rng): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/,;';
  let s = '';
  for (let i = rng.range(1, 200); i > 0; i--) s += chars[rng.int(chars.length)];
  return s;
}

/** Huge shapes: each a fixed case. Trees built iteratively, texts built as strings (JSON.stringify recurses). */
const SHAPES: Array<{ name: string; make(ctx: GenContext, rng: Rng): FuzzInput }> = [
  {
    name: 'deep chain 100k, distinct workspace functions',
    make: (ctx, rng) => ({
      kind: 'value',
      root: ctx.ws.root,
      note: '',
      file: true,
      value: chain(
        100_000,
        (i) => ({ name: `f${i}`, url: fileUrl(ctx.ws.app), line0: i % ctx.ws.appLines, col0: i % 30 }),
        rng,
      ),
    }),
  },
  {
    name: 'deep chain 100k, one recursive function',
    make: (ctx, rng) => ({
      kind: 'value',
      root: ctx.ws.root,
      note: '',
      file: true,
      value: chain(
        100_000,
        () => ({ name: 'hot', url: fileUrl(ctx.ws.app), line0: 1, col0: 12, ticks: [[4, 1]] }),
        rng,
      ),
    }),
  },
  {
    name: 'deep chain 100k, native and dependency frames',
    make: (ctx, rng) => ({
      kind: 'value',
      root: ctx.ws.root,
      note: '',
      file: true,
      value: chain(
        100_000,
        (i) =>
          i % 2
            ? { name: 'workSync', url: fileUrl(path.join(ctx.ws.root, 'node_modules/dep/index.js')) }
            : { name: `n${i % 7}` },
        rng,
      ),
    }),
  },
  {
    name: 'deep chain 100k closed into a cycle below a lone root',
    make: (ctx, rng) => {
      const p = chain(100_000, (i) => ({ name: `f${i}` }), rng);
      p.nodes[p.nodes.length - 1].children = [2];
      p.nodes[0].children = [];
      return { kind: 'value', root: ctx.ws.root, note: '', file: true, value: p };
    },
  },
  {
    name: 'deep chain 100k, no root (a cycle through every node)',
    make: (ctx, rng) => {
      const p = chain(100_000, (i) => ({ name: `f${i}` }), rng);
      p.nodes[p.nodes.length - 1].children = [1];
      return { kind: 'value', root: ctx.ws.root, note: '', file: true, value: p };
    },
  },
  {
    name: 'wide: (root) with 100k children',
    make: (ctx, rng) => ({ kind: 'value', root: ctx.ws.root, note: '', file: true, value: wide(100_000, 0, ctx, rng) }),
  },
  {
    name: 'wide: a workspace function with 100k callees',
    make: (ctx, rng) => ({ kind: 'value', root: ctx.ws.root, note: '', file: true, value: wide(100_000, 1, ctx, rng) }),
  },
  {
    name: '{profile: {profile: …}} nested 100k deep',
    make: (ctx) => ({
      kind: 'text',
      root: ctx.ws.root,
      note: '',
      text: `${'{"profile":'.repeat(100_000)}${JSON.stringify(synth([{ name: '(root)', parent: -1 }], [0]))}${'}'.repeat(100_000)}`,
    }),
  },
  {
    name: 'children nested 100k arrays deep',
    make: (ctx) => ({
      kind: 'text',
      root: ctx.ws.root,
      note: '',
      text: `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":${'['.repeat(100_000)}${']'.repeat(100_000)}}],"startTime":0,"endTime":1}`,
    }),
  },
  {
    name: 'unknown field nested 100k objects deep',
    make: (ctx) => ({
      kind: 'text',
      root: ctx.ws.root,
      note: '',
      text: `{"x":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)},"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}],"startTime":0,"endTime":1}`,
    }),
  },
  {
    name: '10 MB function name',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      const big = `${'ƒ'.repeat(5_000_000)}Sync`;
      p.nodes[1].callFrame.functionName = big;
      p.nodes[p.nodes.length - 1].callFrame.functionName = big;
      return { kind: 'value', root: ctx.fixtures[0].root, note: '', file: true, value: p };
    },
  },
  {
    name: '10 MB file URL inside the root',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      p.nodes[1].callFrame.url = `${fileUrl(ctx.ws.root)}/${'a'.repeat(10_000_000)}.js`;
      return { kind: 'value', root: ctx.ws.root, note: '', file: true, value: p };
    },
  },
  {
    name: '10 MB non-file URL and script id',
    make: (ctx, rng) => {
      const p = clone(rng.pick(ctx.fixtures).raw) as J;
      p.nodes[1].callFrame.url = `https://x/${'%'.repeat(10_000_000)}`;
      p.nodes[2].callFrame.scriptId = 'x'.repeat(10_000_000);
      return { kind: 'value', root: ctx.ws.root, note: '', file: true, value: p };
    },
  },
  {
    name: '200k missing workspace files (one note each)',
    make: (ctx) => {
      const frames: Syn[] = [{ name: '(root)', parent: -1 }];
      for (let i = 0; i < 200_000; i++)
        frames.push({
          name: `m${i}`,
          url: fileUrl(path.join(ctx.ws.root, 'gone', `f${i}.js`)),
          line0: 0,
          col0: 0,
          parent: 0,
        });
      return { kind: 'value', root: ctx.ws.root, note: '', file: true, value: synth(frames, [1, 2, 3]) };
    },
  },
  {
    name: '200k position ticks on one workspace node',
    make: (ctx) => {
      const ticks: Array<[number, number]> = Array.from({ length: 200_000 }, (_, i) => [1 + (i % 20), 1 + (i % 3)]);
      return {
        kind: 'value',
        root: ctx.ws.root,
        note: '',
        file: true,
        value: synth(
          [
            { name: '(root)', parent: -1 },
            { name: 'hot', url: fileUrl(ctx.ws.app), line0: 1, col0: 12, parent: 0, ticks },
          ],
          [1, 1, 1],
        ),
      };
    },
  },
  {
    name: '1M samples as JSON text',
    make: (ctx, rng) => {
      const fx = rng.pick(ctx.fixtures);
      const p = clone(fx.raw) as J;
      const ids = p.samples;
      p.samples = Array.from({ length: 1_000_000 }, (_, i) => ids[i % ids.length]);
      p.timeDeltas = Array.from({ length: 1_000_000 }, (_, i) => 900 + (i % 200));
      p.endTime = p.startTime + 1_000_000 * 1000;
      return { kind: 'value', root: fx.root, note: '', file: true, value: p };
    },
  },
];

function chain(n: number, frame: (i: number) => Omit<Syn, 'parent'>, rng: Rng): J {
  const frames: Syn[] = [{ name: '(root)', parent: -1 }];
  for (let i = 0; i < n; i++) frames.push({ ...frame(i), parent: i });
  const samples = Array.from({ length: 5000 }, () => (rng.chance(0.5) ? n : rng.int(n + 1)));
  return synth(frames, samples);
}

function wide(n: number, under: number, ctx: GenContext, rng: Rng): J {
  const app = fileUrl(ctx.ws.app);
  const frames: Syn[] = [
    { name: '(root)', parent: -1 },
    { name: 'main', url: app, line0: 9, col0: 13, parent: 0 },
  ];
  for (let i = 0; i < n; i++) {
    frames.push(
      i % 3 === 0
        ? { name: rng0(i), url: app, line0: 1, col0: 12, parent: under }
        : i % 3 === 1
          ? { name: `gzipSync`, url: 'node:zlib', line0: 1, col0: 0, parent: under }
          : { name: `c${i}`, parent: under },
    );
  }
  const samples = Array.from({ length: 20_000 }, () => rng.int(frames.length));
  return synth(frames, samples);
}

const shapes: Family = {
  name: 'shapes',
  count: SHAPES.length,
  fixed: true,
  timeoutMs: 60_000,
  gen(rng, ctx, index) {
    const s = SHAPES[index % SHAPES.length];
    return { ...s.make(ctx, rng), note: s.name } as FuzzInput;
  },
};

/** Files on disk for analyzeFile: empty, a folder, bytes that are not UTF-8, a BOM, a bad stacks.json beside it. */
const FILES: Array<{ name: string; fsErrors?: string[]; make(dir: string, ctx: GenContext, rng: Rng): string }> = [
  { name: '0-byte file', make: (dir) => put(dir, 'x.cpuprofile', '') },
  { name: 'whitespace only', make: (dir) => put(dir, 'x.cpuprofile', ' \n\t\r\n') },
  { name: 'the JSON null', make: (dir) => put(dir, 'x.cpuprofile', 'null') },
  {
    name: 'a directory named x.cpuprofile',
    fsErrors: ['EISDIR'],
    make: (dir) => {
      const d = path.join(dir, 'x.cpuprofile');
      fs.mkdirSync(d);
      return d;
    },
  },
  { name: 'a missing file', fsErrors: ['ENOENT'], make: (dir) => path.join(dir, 'missing.cpuprofile') },
  {
    name: 'a symlink loop',
    fsErrors: ['ELOOP'],
    make: (dir) => {
      const f = path.join(dir, 'loop.cpuprofile');
      fs.symlinkSync(f, f);
      return f;
    },
  },
  {
    name: 'a dangling symlink',
    fsErrors: ['ENOENT'],
    make: (dir) => {
      const f = path.join(dir, 'dangling.cpuprofile');
      fs.symlinkSync(path.join(dir, 'nowhere'), f);
      return f;
    },
  },
  {
    name: 'a symlink to /dev/null',
    make: (dir) => {
      const f = path.join(dir, 'null.cpuprofile');
      fs.symlinkSync('/dev/null', f);
      return f;
    },
  },
  {
    name: 'a symlink to a real profile',
    make: (dir, ctx) => {
      const f = path.join(dir, 'ok.cpuprofile');
      fs.symlinkSync(path.join(ctx.fixtures[0].root, 'profile.cpuprofile'), f);
      return f;
    },
  },
  {
    name: 'not UTF-8 (Latin-1 names)',
    make: (dir, ctx) =>
      put(
        dir,
        'x.cpuprofile',
        Buffer.from(JSON.stringify(ctx.fixtures[0].raw).replace(/"checkPassword"/g, '"chéckPässwörd"'), 'latin1'),
      ),
  },
  {
    name: 'not UTF-8 (invalid bytes in strings)',
    make: (dir, ctx) => {
      const text = Buffer.from(JSON.stringify(ctx.fixtures[1].raw).replace(/"\(root\)"/, '"(root)XXXX"'));
      const at = text.indexOf('XXXX');
      text[at] = 0xff;
      text[at + 1] = 0xfe;
      text[at + 2] = 0xc3;
      text[at + 3] = 0x28;
      return put(dir, 'x.cpuprofile', text);
    },
  },
  {
    name: 'random binary',
    make: (dir, _ctx, rng) => put(dir, 'x.cpuprofile', Buffer.from(Array.from({ length: 4096 }, () => rng.int(256)))),
  },
  {
    name: 'gzip-compressed profile',
    make: (dir, ctx) => put(dir, 'x.cpuprofile', zlib.gzipSync(JSON.stringify(ctx.fixtures[2].raw))),
  },
  {
    name: 'UTF-8 BOM + valid profile',
    make: (dir, ctx) => put(dir, 'x.cpuprofile', `\uFEFF${JSON.stringify(ctx.fixtures[3].raw)}`),
  },
  {
    name: 'UTF-8 BOM + whitespace + valid profile',
    make: (dir, ctx) => put(dir, 'x.cpuprofile', `\uFEFF \n${JSON.stringify(ctx.fixtures[4].raw)}\n`),
  },
  { name: 'UTF-8 BOM only', make: (dir) => put(dir, 'x.cpuprofile', '\uFEFF') },
  {
    name: 'two BOMs + valid profile',
    make: (dir, ctx) => put(dir, 'x.cpuprofile', `\uFEFF\uFEFF${JSON.stringify(ctx.fixtures[3].raw)}`),
  },
  {
    name: 'UTF-16LE with BOM',
    make: (dir, ctx) =>
      put(
        dir,
        'x.cpuprofile',
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(ctx.fixtures[5].raw), 'utf16le')]),
      ),
  },
  {
    name: 'UTF-16BE with BOM',
    make: (dir, ctx) =>
      put(
        dir,
        'x.cpuprofile',
        Buffer.concat([
          Buffer.from([0xfe, 0xff]),
          Buffer.from(JSON.stringify(ctx.fixtures[5].raw), 'utf16le').swap16(),
        ]),
      ),
  },
  {
    name: 'two profiles concatenated',
    make: (dir, ctx) =>
      put(dir, 'x.cpuprofile', JSON.stringify(ctx.fixtures[0].raw) + JSON.stringify(ctx.fixtures[1].raw)),
  },
  {
    name: 'trailing garbage',
    make: (dir, ctx) => put(dir, 'x.cpuprofile', `${JSON.stringify(ctx.fixtures[0].raw)}\u0000\u0000garbage`),
  },
  {
    name: 'JSON with comments',
    make: (dir, ctx) => put(dir, 'x.cpuprofile', `// saved by DevTools\n${JSON.stringify(ctx.fixtures[0].raw)}`),
  },
  { name: 'NUL bytes only', make: (dir) => put(dir, 'x.cpuprofile', Buffer.alloc(1000)) },
  ...[
    'null',
    '[1,2,3]',
    'garbage{',
    '{"version":1,"sampleCount":0,"frames":null,"captures":[],"ticks":[]}',
    '{"version":1,"sampleCount":-1,"frames":[{"url":1}],"captures":[[0,1e300]],"ticks":[[-1,0]]}',
    JSON.stringify({
      version: 1,
      sampleCount: 2 ** 53,
      frames: [{ url: '__proto__', line: 2 ** 53, column: -5, functionName: '__proto__' }],
      captures: [[0]],
      ticks: [[0, 0]],
    }),
    '{"__proto__":{"polluted":1}}',
  ].map((stacks, i) => ({
    name: `a bad stacks.json beside a good profile (#${i})`,
    make: (dir: string, ctx: GenContext) => {
      put(dir, 'stacks.json', stacks);
      return put(dir, 'profile.cpuprofile', JSON.stringify(ctx.fixtures[0].raw));
    },
  })),
  {
    name: 'stacks.json that is a directory',
    make: (dir, ctx) => {
      fs.mkdirSync(path.join(dir, 'stacks.json'));
      return put(dir, 'profile.cpuprofile', JSON.stringify(ctx.fixtures[0].raw));
    },
  },
  {
    name: 'stacks.json that is a dangling symlink',
    make: (dir, ctx) => {
      fs.symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'stacks.json'));
      return put(dir, 'profile.cpuprofile', JSON.stringify(ctx.fixtures[0].raw));
    },
  },
  {
    name: 'stacks.json whose ticks name samples of another profile',
    make: (dir, ctx) => {
      const samples = (ctx.fixtures[0].raw as { samples?: unknown[] }).samples?.length ?? 0;
      put(
        dir,
        'stacks.json',
        JSON.stringify({
          version: 1,
          sampleCount: samples,
          frames: [{ url: '/elsewhere.js', line: 3, column: 1, functionName: 'f' }],
          captures: [[0]],
          ticks: [
            [0, 0],
            [samples - 1, 0],
          ],
        }),
      );
      return put(dir, 'profile.cpuprofile', JSON.stringify(ctx.fixtures[0].raw));
    },
  },
];

function put(dir: string, name: string, data: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, data);
  return file;
}

const files: Family = {
  name: 'files',
  count: FILES.length,
  fixed: true,
  gen(rng, ctx, index) {
    const f = FILES[index % FILES.length];
    return {
      kind: 'file',
      make: (dir) => f.make(dir, ctx, rng),
      root: ctx.fixtures[0].root,
      note: f.name,
      fsErrors: f.fsErrors,
    };
  },
};

export const HUGE_SAMPLES = 10_000_000;

const huge: Family = {
  name: 'huge',
  count: 1,
  fixed: true,
  timeoutMs: 300_000,
  gen: () => ({ kind: 'huge', samples: HUGE_SAMPLES, note: `${HUGE_SAMPLES / 1e6}M samples, built in memory` }),
};

export const FAMILIES: readonly Family[] = [
  huge,
  shapes,
  structure,
  fields,
  truncated,
  types,
  numbers,
  samples,
  names,
  urls,
  odd,
  merge,
  sourcemaps,
  files,
];

export interface PlannedCase {
  family: string;
  index: number;
  timeoutMs: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

/** The cases of a run: fixed families in full, the others scaled to reach `total`. */
export function planCases(total: number): PlannedCase[] {
  const fixed = FAMILIES.filter((f) => f.fixed);
  const scaled = FAMILIES.filter((f) => !f.fixed);
  const fixedCount = fixed.reduce((s, f) => s + f.count, 0);
  const scaledDefault = scaled.reduce((s, f) => s + f.count, 0);
  const budget = Math.max(scaled.length, total - fixedCount);
  const out: PlannedCase[] = [];
  for (const f of FAMILIES) {
    const n = f.fixed ? f.count : Math.max(1, Math.round((f.count * budget) / scaledDefault));
    for (let i = 0; i < n; i++) out.push({ family: f.name, index: i, timeoutMs: f.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  }
  return out;
}

export function generate(seed: number, family: string, index: number, ctx: GenContext): FuzzInput {
  const f = FAMILIES.find((x) => x.name === family);
  if (!f) throw new Error(`no fuzz family ${family}`);
  return f.gen(new Rng(caseSeed(seed, family, index)), ctx, index);
}

// ---- running a case -----------------------------------------------------------------------------

export type Outcome = 'valid' | 'typed' | 'crash' | 'invalid';

export interface CaseResult {
  outcome: Outcome;
  /** For typed errors: which type (ProfileFormatError, fs EISDIR, …). */
  type?: string;
  message?: string;
  stack?: string;
  note: string;
  /** Extra measurements (the 10M case's timings). */
  info?: Record<string, number>;
}

const RANK: Record<Outcome, number> = { valid: 0, typed: 1, invalid: 2, crash: 3 };

class Invalid extends Error {}

/** The deliberate typed errors of the analysis and the loader. */
function classify(
  err: unknown,
  fsErrors: readonly string[] = [],
): Pick<CaseResult, 'outcome' | 'type' | 'message' | 'stack'> {
  const e = err as Error & { code?: string };
  const message = String(e?.message ?? e).slice(0, 500);
  const stack = String(e?.stack ?? '')
    .split('\n')
    .slice(0, 8)
    .join('\n');
  if (err instanceof Invalid) return { outcome: 'invalid', message, stack };
  if (err instanceof ProfileFormatError) return { outcome: 'typed', type: 'ProfileFormatError', message };
  if (typeof e?.code === 'string' && fsErrors.includes(e.code))
    return { outcome: 'typed', type: `fs ${e.code}`, message };
  return { outcome: 'crash', type: e?.name ?? typeof err, message, stack };
}

/** Every number finite, times and shares not negative, lines and columns not negative. */
export function checkAnalysis(a: Analysis): void {
  const bad = (what: string): never => {
    throw new Invalid(`invalid result: ${what}`);
  };
  if (typeof a !== 'object' || a === null) bad('not an object');
  for (const k of ['functions', 'lines', 'hints', 'notes'] as const)
    if (!Array.isArray(a[k])) bad(`${k} is not an array`);
  if (!Number.isInteger(a.samples) || a.samples < 0) bad(`samples ${a.samples}`);
  const stack: Array<{ v: unknown; at: string }> = [{ v: a, at: '$' }];
  while (stack.length > 0) {
    const { v, at } = stack.pop()!;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) bad(`${at} = ${v}`);
      if (v < 0 && /(Ms|Pct|Us|samples|\.line|\.column|endLine)$/.test(at)) bad(`${at} = ${v}`);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) stack.push({ v: x, at: Array.isArray(v) ? `${at}[]` : `${at}.${k}` });
    } else if (v !== undefined && typeof v !== 'string' && typeof v !== 'boolean') {
      bad(`${at} is a ${typeof v}`);
    }
  }
}

/** Records the paths every content read of `fs` touches while `fn` runs. */
function recordingReads<T>(fn: () => T): { value?: T; error?: unknown; reads: string[] } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('node:fs') as Record<string, unknown>;
  const reads: string[] = [];
  const names = ['readFileSync', 'openSync', 'createReadStream', 'readdirSync', 'opendirSync'] as const;
  const saved = names.map((n) => mod[n]);
  names.forEach((n, i) => {
    const orig = saved[i] as (...args: unknown[]) => unknown;
    mod[n] = function (this: unknown, ...args: unknown[]) {
      if (typeof args[0] === 'string' || args[0] instanceof URL || Buffer.isBuffer(args[0]))
        reads.push(String(args[0] instanceof URL ? args[0].pathname : args[0]));
      return orig.apply(this, args);
    };
  });
  try {
    return { value: fn(), reads };
  } catch (error) {
    return { error, reads };
  } finally {
    names.forEach((n, i) => (mod[n] = saved[i]));
  }
}

function realOrResolved(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

function checkReads(reads: readonly string[], root: string, allowed: readonly string[], ws: Workspace): void {
  const realRoot = realOrResolved(root);
  const ok = new Set(allowed.map((p) => path.resolve(p)));
  for (const p of reads) {
    if (ok.has(path.resolve(p))) continue;
    const real = realOrResolved(p);
    const rel = path.relative(realRoot, real);
    if (rel.startsWith('..') || path.isAbsolute(rel))
      throw new Invalid(`read outside the root: ${p.slice(0, 200)} (→ ${real.slice(0, 200)})`);
    if (ws.fifo && real === realOrResolved(ws.fifo)) throw new Invalid(`read a named pipe: ${p}`);
  }
}

function checkSources(sources: ReadonlyMap<string, string>, ws: Workspace): void {
  for (const [file, text] of sources)
    if (text.includes(ws.secret))
      throw new Invalid(`the text of a file outside the root was loaded as ${file.slice(0, 200)}`);
}

const PROTO_KEYS = (): string =>
  [Object.prototype, Array.prototype, Function.prototype, String.prototype]
    .map((p) => Object.getOwnPropertyNames(p).sort().join(','))
    .join('|');
const PROTO_BASELINE = PROTO_KEYS();

export interface RunContext extends GenContext {
  /** Where the profile files of a case are written (outside every root). */
  scratch: string;
}

/** Runs one case: the in-memory path and the file path, each checked; the worse outcome wins. */
export function runCase(input: FuzzInput, ctx: RunContext): CaseResult {
  const results: CaseResult[] = [];
  const note = input.note;
  let readCount = 0;
  const step = (fn: () => void, root: string, allowed: string[] = [], fsErrors: string[] = []): void => {
    const { error, reads } = recordingReads(fn);
    readCount += reads.length;
    let result: CaseResult = error === undefined ? { outcome: 'valid', note } : { ...classify(error, fsErrors), note };
    if (result.outcome === 'valid' || result.outcome === 'typed') {
      try {
        checkReads(reads, root, allowed, ctx.ws);
      } catch (err) {
        result = { ...classify(err), note };
      }
    }
    results.push(result);
  };
  const memory = (value: unknown, root: string): void =>
    step(() => {
      const profile = readCpuProfile(value);
      const loaded = loadSources(profile, root);
      checkSources(loaded.sources, ctx.ws);
      const analysis = analyzeProfile({ profile, root, sources: loaded.sources, sourceMaps: loaded.sourceMaps });
      checkAnalysis(analysis);
    }, root);
  const onDisk = (make: (dir: string) => string, root: string, fsErrors: string[] = []): void => {
    const dir = fs.mkdtempSync(path.join(ctx.scratch, 'p-'));
    let file: string;
    try {
      file = make(dir);
    } catch (err) {
      results.push({
        outcome: 'crash',
        note,
        message: `the fuzzer could not lay out the file: ${(err as Error).message}`,
      });
      return;
    }
    step(
      () => {
        const { analysis, sources } = analyzeFile(file, root);
        checkSources(sources, ctx.ws);
        checkAnalysis(analysis);
      },
      root,
      [
        file,
        path.join(path.dirname(file), 'stacks.json'),
        path.join(path.dirname(file), 'sources.json'),
        path.join(path.dirname(file), 'scripts.json'), // the code the app ran from memory (store/scripts-file.ts)
        realOrResolved(file),
      ],
      fsErrors,
    );
    fs.rmSync(dir, { recursive: true, force: true });
  };

  switch (input.kind) {
    case 'value': {
      memory(input.value, input.root);
      if (input.file) {
        let text: string | undefined;
        try {
          text = JSON.stringify(input.value);
        } catch {
          text = undefined; // not representable as JSON: the in-memory path covered it
        }
        if (text !== undefined) onDisk((dir) => put(dir, 'case.cpuprofile', text), input.root);
      }
      break;
    }
    case 'text':
      onDisk((dir) => put(dir, 'case.cpuprofile', input.text), input.root);
      break;
    case 'file':
      onDisk(input.make, input.root, input.fsErrors);
      break;
    case 'merge':
      step(() => {
        const accepted = [];
        for (const v of input.values) {
          try {
            accepted.push(readCpuProfile(v));
          } catch (err) {
            if (!(err instanceof ProfileFormatError)) throw err;
          }
        }
        if (accepted.length === 0) throw new ProfileFormatError('no segment was accepted', 'fuzz');
        const merged = mergeProfiles(accepted);
        let again;
        try {
          again = readCpuProfile(merged);
        } catch (err) {
          throw new Invalid(`the merge of accepted profiles is rejected: ${(err as Error).message}`);
        }
        checkAnalysis(analyzeProfile({ profile: again, root: input.root }));
      }, input.root);
      break;
    case 'huge': {
      const info: Record<string, number> = {};
      step(() => {
        let t = performance.now();
        const value = hugeProfile(ctx.fixtures[0].raw, input.samples);
        info.buildMs = Math.round(performance.now() - t);
        t = performance.now();
        const profile = readCpuProfile(value);
        info.readMs = Math.round(performance.now() - t);
        t = performance.now();
        const analysis = analyzeProfile({ profile, root: ctx.fixtures[0].root });
        info.analyzeMs = Math.round(performance.now() - t);
        info.samples = analysis.samples;
        checkAnalysis(analysis);
        if (analysis.samples !== input.samples)
          throw new Invalid(`${analysis.samples} samples analyzed of ${input.samples}`);
      }, ctx.fixtures[0].root);
      results[results.length - 1].info = info;
      break;
    }
  }
  if (PROTO_KEYS() !== PROTO_BASELINE || ({} as Record<string, unknown>).polluted !== undefined) {
    results.push({ outcome: 'invalid', note, message: 'a prototype was changed (prototype pollution)' });
  }
  const worst = results.reduce((w, r) => (RANK[r.outcome] > RANK[w.outcome] ? r : w));
  return { ...worst, info: { ...results.find((r) => r.info)?.info, reads: readCount } };
}

/** A real profile's tree with `count` samples drawn from its own, deltas jittered around 1 ms. */
function hugeProfile(raw: RawProfile, count: number): J {
  const src = raw.samples!;
  const samples = new Array<number>(count);
  const timeDeltas = new Array<number>(count);
  let x = 12345;
  for (let i = 0; i < count; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    samples[i] = src[x % src.length];
    timeDeltas[i] = 900 + (x % 200);
  }
  return {
    nodes: clone(raw.nodes),
    startTime: raw.startTime,
    endTime: raw.startTime + count * 1000,
    samples,
    timeDeltas,
  };
}
