// Issue 40: does `hotline gate` decide, on app shapes it was not tuned on, and with what measure?
// N gates of identical code (A beside A, its copy) and N of a ~10% costlier hot line (A beside
// B), alternated, per app, each `hotline gate A B --entry server.js --url PATH --json` at the
// defaults (5%, --max-time 270 s). Per app it prints ok / slower / inconclusive counts, which
// measure decided (verdict.decidedBy), the median time a gate took, and the detectable change
// each gate reported (verdict.detectablePct). Writes bench/out/gate-measure.json.
// The apps (written into a temporary folder, each with its B):
// - hash: the issue's JSON API, plain http: serialises a small list and runs a chain of
//   createHash('sha256') calls on one line; B's chain is 10% longer;
// - express: a route of an Express app (npm's express, with express.json() and a Router in
//   front): a list filtered, sorted and sent by res.json(); B's list is 12% longer;
// - login: the demo's Express login (examples/login-api, pbkdf2), B 10% more iterations (needs
//   `npm run setup:examples`).
//
//   HOTLINE_BENCH_GATES=20 HOTLINE_BENCH_GATE_APPS=hash,express node --import tsx bench/gate-measure.ts
//   HOTLINE_BENCH_CLI=/path/to/bin/hotline.js  (default: this checkout's bin/hotline.js)
//   HOTLINE_BENCH_GATE_ARGS="--max-time 150"    (more options for every gate)
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { BENCH_DIR, REPO, median, progress, round, tmpDir, LOGIN_ARGS } from './common.ts';

const run = promisify(execFile);
const GATES = Number(process.env.HOTLINE_BENCH_GATES) || 20;
const CLI = process.env.HOTLINE_BENCH_CLI ?? path.join(REPO, 'bin', 'hotline.js');
/** More gate options for every gate, e.g. "--max-time 150" for a short bench (said in its output). */
const EXTRA = (process.env.HOTLINE_BENCH_GATE_ARGS ?? '').split(' ').filter((x) => x !== '');

interface App {
  id: string;
  name: string;
  /** Files of A (name → text), or a folder to copy. */
  files: Record<string, string> | string;
  file: string;
  from: string;
  to: string;
  change: string;
  args: string[];
  /** The folder whose node_modules A links to. */
  modules?: string;
}

const HASH_API = `const http = require('node:http');
const { createHash } = require('node:crypto');
const items = Array.from({ length: 20 }, (_, i) => ({ id: i, name: 'item ' + i, price: i * 1.5 }));
http
  .createServer((req, res) => {
    const body = JSON.stringify({ items, at: req.url });
    let h = body; for (let i = 0; i < 200; i++) h = createHash('sha256').update(h).digest('hex');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ n: items.length, h }));
  })
  .listen(Number(process.env.PORT) || 3000);
`;

const EXPRESS_APP = `const express = require('express');
const app = express();
app.use(express.json());
app.use((req, res, next) => { res.setHeader('x-served-by', 'bench'); next(); });
const products = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: 'product ' + i, price: (i * 7919) % 1000 / 10, tags: ['a', 'b', String(i % 7)] }));
const router = express.Router();
router.get('/products', (req, res) => {
  const min = Number(req.query.min) || 0;
  res.json(products.filter((p) => p.price >= min).sort((a, b) => a.price - b.price || a.id - b.id).slice(0, 50));
});
app.use('/api', router);
app.listen(Number(process.env.PORT) || 3000);
`;

const APPS: App[] = [
  {
    id: 'hash',
    name: 'JSON API with a sha256 chain (plain http)',
    files: { 'server.js': HASH_API },
    file: 'server.js',
    from: 'i < 200;',
    to: 'i < 220;',
    change: 'the sha256 chain 200 → 220',
    args: ['--entry', 'server.js', '--url', '/'],
  },
  {
    id: 'express',
    name: 'Express route (express.json, a Router, res.json)',
    files: { 'server.js': EXPRESS_APP },
    modules: REPO,
    file: 'server.js',
    from: 'length: 2000 }',
    to: 'length: 2240 }',
    change: 'the list the route filters and sorts 2000 → 2240',
    args: ['--entry', 'server.js', '--url', '/api/products?min=20'],
  },
  {
    id: 'login',
    name: 'crypto route (the Express login example)',
    files: path.join(REPO, 'examples', 'login-api'),
    modules: path.join(REPO, 'examples', 'login-api'),
    file: 'server.js',
    from: ', 10000, 512,',
    to: ', 11000, 512,',
    change: 'pbkdf2 10000 → 11000 iterations',
    args: LOGIN_ARGS,
  },
];

interface Gate {
  pair: 'A|A' | 'A|B';
  outcome: 'ok' | 'slower' | 'inconclusive' | 'cannot';
  decidedBy: string;
  detectablePct: number | null;
  changePct: number | null;
  rounds: number;
  seconds: number;
}

function versions(app: App, root: string): { a: string; a2: string; b: string } {
  const dirs = { a: path.join(root, 'a'), a2: path.join(root, 'a2'), b: path.join(root, 'b') };
  for (const dir of Object.values(dirs)) {
    fs.mkdirSync(dir);
    if (typeof app.files === 'string') {
      for (const f of fs.readdirSync(app.files)) {
        const from = path.join(app.files, f);
        if (f !== '.hotline' && f !== 'node_modules' && fs.statSync(from).isFile())
          fs.copyFileSync(from, path.join(dir, f));
      }
    } else for (const [f, text] of Object.entries(app.files)) fs.writeFileSync(path.join(dir, f), text);
    if (app.modules) fs.symlinkSync(path.join(app.modules, 'node_modules'), path.join(dir, 'node_modules'));
  }
  const target = path.join(dirs.b, app.file);
  const code = fs.readFileSync(target, 'utf8');
  if (!code.includes(app.from)) throw new Error(`${app.name}: "${app.from}" is not in ${app.file}`);
  fs.writeFileSync(target, code.replaceAll(app.from, app.to));
  return dirs;
}

async function gate(app: App, base: string, current: string, pair: Gate['pair']): Promise<Gate> {
  const started = Date.now();
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, [CLI, 'gate', base, current, ...app.args, ...EXTRA, '--json'], {
      maxBuffer: 1 << 26,
      timeout: 900_000,
    }));
  } catch (err) {
    // Exit 3 (slower) and 4 (inconclusive) still print the JSON.
    const e = err as { stdout?: string; code?: number; stderr?: string };
    if (!e.stdout) throw new Error(`gate ${pair} of ${app.name} failed (exit ${e.code}): ${e.stderr?.slice(-600)}`);
    stdout = e.stdout;
  }
  const out = JSON.parse(stdout) as {
    figures: { rounds: number };
    verdict: {
      decided: boolean;
      failed?: boolean;
      inconclusive?: boolean;
      decidedBy?: { figures: string[] };
      detectablePct?: number;
      checks?: Array<{ figure: string; changePct: number; notGated?: string }>;
    };
  };
  const v = out.verdict;
  const deciding = v.checks?.find((x) => x.notGated === undefined);
  return {
    pair,
    outcome: !v.decided ? 'cannot' : v.failed ? 'slower' : v.inconclusive ? 'inconclusive' : 'ok',
    decidedBy: v.decidedBy?.figures.join(' + ') ?? 'none',
    detectablePct: v.detectablePct ?? null,
    changePct: deciding?.changePct ?? null,
    rounds: out.figures.rounds,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
}

function summary(app: App, gates: Gate[]): string[] {
  const lines: string[] = [];
  for (const pair of ['A|A', 'A|B'] as const) {
    const gs = gates.filter((g) => g.pair === pair);
    const count = (o: Gate['outcome']): number => gs.filter((g) => g.outcome === o).length;
    const by = new Map<string, number>();
    for (const g of gs) by.set(g.decidedBy, (by.get(g.decidedBy) ?? 0) + 1);
    const det = gs.map((g) => g.detectablePct).filter((x): x is number => x !== null);
    const chg = gs.map((g) => g.changePct).filter((x): x is number => x !== null);
    lines.push(
      `${app.id} ${pair === 'A|A' ? 'identical' : app.change}: ok ${count('ok')}, slower ${count('slower')}, inconclusive ${count('inconclusive')}${count('cannot') ? `, cannot ${count('cannot')}` : ''} of ${gs.length}; decided by ${[...by].map(([k, n]) => `${k} ×${n}`).join(', ')}; change ${chg.map((x) => `${x}%`).join(' ')}; detectable median ${round(median(det), 1)}% (${det.join(', ')}); ${round(median(gs.map((g) => g.seconds)), 0)} s a gate (median; ${gs.map((g) => g.seconds).join(', ')}), rounds ${gs.map((g) => g.rounds).join(', ')}`,
    );
  }
  return lines;
}

async function main(): Promise<void> {
  const started = Date.now();
  const root = tmpDir('hotline-gate-measure-');
  const wanted = (process.env.HOTLINE_BENCH_GATE_APPS ?? 'hash,express').split(',');
  const all: Record<string, Gate[]> = {};
  const lines: string[] = [];
  const load0 = os.loadavg().map((x) => round(x, 2));
  try {
    for (const app of APPS.filter((a) => wanted.includes(a.id))) {
      const dirs = versions(app, fs.mkdtempSync(path.join(root, `${app.id}-`)));
      const gates: Gate[] = [];
      for (let i = 0; i < GATES; i++) {
        for (const [pair, b] of [
          ['A|A', dirs.a2],
          ['A|B', dirs.b],
        ] as const) {
          progress(`${app.id}: ${pair} ${i + 1}/${GATES}`);
          const g = await gate(app, dirs.a, b, pair);
          gates.push(g);
          progress(
            `  → ${g.outcome}, by ${g.decidedBy}, ${g.changePct}%, detectable ${g.detectablePct}%, ${g.rounds} rounds, ${g.seconds} s`,
          );
        }
      }
      all[app.id] = gates;
      lines.push(...summary(app, gates));
      write({ partial: true, gates: all });
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const result = {
    date: new Date().toISOString(),
    gatesEach: GATES,
    gateArgs: EXTRA,
    durationS: Math.round((Date.now() - started) / 1000),
    machine: {
      cores: os.cpus().length,
      node: process.version,
      loadAverageAtStart: load0,
      loadAverageAtEnd: os.loadavg().map((x) => round(x, 2)),
    },
    summary: lines,
    gates: all,
  };
  write(result);
  for (const l of lines) process.stdout.write(`${l}\n`);
}

function write(value: unknown): void {
  fs.mkdirSync(path.join(BENCH_DIR, 'out'), { recursive: true });
  fs.writeFileSync(path.join(BENCH_DIR, 'out', 'gate-measure.json'), JSON.stringify(value, null, 1));
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
