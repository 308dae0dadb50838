// Issue 24: the gate's error rates on three apps of different shapes and costs per request, none
// written for this bench: a JSON API (bench/apps/json-api.js, ~0.4 ms of CPU a request), an app
// that logs every request (bench/apps/logging.js) and a crypto-bound route (the demo's Express
// login, examples/login-api, ~40 ms a request in pbkdf2Sync).
// Each gate is the one users run, `hotline gate A B --json` at its defaults (5%, 5 rounds of 2 s,
// extended up to 15 while undecided), on copies of the app in a temporary folder:
// - A beside A (identical code in two folders): a regression verdict is a false alarm (≤ 1 in 20);
// - A beside B, B's hot line made costlier by a code change so the request costs ~10% more
//   (measured and printed: the effect): "regressed" is caught (≥ 19 in 20); "inconclusive" is not.
// Alternated A|A, A|B per app. Prints one line per figure and writes bench/out/gate-apps-<app>.json
// as each app ends and bench/out/gate-apps.json at the end (every gate's verdict, rounds, time and
// CPU/request change). The login example needs its dependencies (`npm run setup:examples`).
//
//   node --import tsx bench/gate-apps.ts            (20 of each per app, ~2 h on 2 cores)
//   HOTLINE_BENCH_QUICK=1 node --import tsx bench/gate-apps.ts
//   HOTLINE_BENCH_GATE_APPS=crypto node --import tsx bench/gate-apps.ts   (some apps: json, logging, crypto)
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { BENCH_DIR, QUICK, REPO, median, progress, round, tmpDir, type Figure, LOGIN_ARGS } from './common.ts';

const run = promisify(execFile);
const GATES = QUICK ? 2 : Number(process.env.HOTLINE_BENCH_GATES) || 20;

interface GateApp {
  /** Its name in HOTLINE_BENCH_GATE_APPS and in the result file's. */
  id: string;
  name: string;
  /** The app's folder and the file whose hot line B changes. */
  source: string;
  file: string;
  /** The code change of B: the text replaced, and by what. */
  from: string;
  to: string;
  change: string;
  args: string[];
}

const catalogue = (id: string, file: string, name: string): GateApp => ({
  id,
  name,
  source: path.join(BENCH_DIR, 'apps'),
  file,
  // The catalogue the hot line sorts grows by 12.5% (sort: n log n).
  from: 'Array.from({ length: 2000 }',
  to: 'Array.from({ length: 2250 }',
  change: 'the catalogue its hot line filters and sorts 2000 → 2250 products',
  args: ['--entry', file, '--url', '/products?min=20'],
});

const APPS: GateApp[] = [
  catalogue('json', 'json-api.js', 'JSON API'),
  catalogue('logging', 'logging.js', 'logging API'),
  {
    id: 'crypto',
    name: 'crypto route (Express login)',
    source: path.join(REPO, 'examples', 'login-api'),
    file: 'server.js',
    // Every pbkdf2 of the app, the users' stored hashes too (else no login succeeds).
    from: ', 10000, 512,',
    to: ', 11000, 512,',
    change: 'pbkdf2 10000 → 11000 iterations',
    args: LOGIN_ARGS,
  },
];

interface GateResult {
  pair: 'A|A' | 'A|B';
  outcome: 'regressed' | 'ok' | 'inconclusive' | 'undecided-run';
  rounds: number;
  seconds: number;
  cpuChangePct: number | null;
}

/** Copies of the app: A, A again (identical code in its own folder), and B with the change. */
function versions(app: GateApp, root: string): { a: string; a2: string; b: string } {
  const dirs = { a: path.join(root, 'a'), a2: path.join(root, 'a2'), b: path.join(root, 'b') };
  for (const dir of Object.values(dirs)) {
    fs.mkdirSync(dir);
    for (const f of fs.readdirSync(app.source)) {
      if (f === '.hotline') continue;
      const from = path.join(app.source, f);
      if (f === 'node_modules') fs.symlinkSync(from, path.join(dir, f));
      else if (fs.statSync(from).isFile()) fs.copyFileSync(from, path.join(dir, f));
    }
  }
  const target = path.join(dirs.b, app.file);
  const code = fs.readFileSync(target, 'utf8');
  if (!code.includes(app.from)) throw new Error(`${app.name}: "${app.from}" is not in ${app.file}`);
  fs.writeFileSync(target, code.replaceAll(app.from, app.to));
  return dirs;
}

async function gate(app: GateApp, base: string, current: string, pair: GateResult['pair']): Promise<GateResult> {
  const started = Date.now();
  const hotline = path.join(REPO, 'bin', 'hotline.js');
  const extra = QUICK ? ['--duration', '4'] : [];
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, [hotline, 'gate', base, current, ...app.args, ...extra, '--json'], {
      maxBuffer: 1 << 26,
      timeout: 600_000,
    }));
  } catch (err) {
    // Exit 1 (regressed), 3/4 (inconclusive) still print the JSON.
    const e = err as { stdout?: string; code?: number; stderr?: string };
    if (!e.stdout) throw new Error(`gate ${pair} of ${app.name} failed (exit ${e.code}): ${e.stderr?.slice(-400)}`);
    stdout = e.stdout;
  }
  const out = JSON.parse(stdout) as {
    figures: { rounds: number };
    verdict: { decided: boolean; failed?: boolean; inconclusive?: boolean };
    comparison: { load?: { cpuPerRequestMs?: { noise?: { changePct: number } } } };
  };
  const v = out.verdict;
  return {
    pair,
    outcome: !v.decided ? 'undecided-run' : v.failed ? 'regressed' : v.inconclusive ? 'inconclusive' : 'ok',
    rounds: out.figures.rounds,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    cpuChangePct: out.comparison.load?.cpuPerRequestMs?.noise?.changePct ?? null,
  };
}

function figuresOf(app: GateApp, results: GateResult[]): Figure[] {
  const same = results.filter((r) => r.pair === 'A|A');
  const slower = results.filter((r) => r.pair === 'A|B');
  const count = (rs: GateResult[], o: GateResult['outcome']): number => rs.filter((r) => r.outcome === o).length;
  const effect = slower.map((r) => r.cpuChangePct).filter((x): x is number => x !== null);
  const noise = same.map((r) => r.cpuChangePct).filter((x): x is number => x !== null);
  const secs = results.map((r) => r.seconds);
  const id = app.id;
  return [
    {
      id: `gate-apps-${id}-false-alarms`,
      name: `${app.name}: hotline gate on identical code, regressed`,
      median: count(same, 'regressed'),
      unit: `of ${same.length}`,
      target: `<= ${same.length / 20}`,
      pass: count(same, 'regressed') <= same.length / 20,
      note: `ok ${count(same, 'ok')}, inconclusive ${count(same, 'inconclusive')}`,
    },
    {
      id: `gate-apps-${id}-caught`,
      name: `${app.name}: hotline gate on ${app.change}, regressed`,
      median: count(slower, 'regressed'),
      unit: `of ${slower.length}`,
      target: `>= ${(slower.length * 19) / 20}`,
      pass: count(slower, 'regressed') >= (slower.length * 19) / 20,
      note: `ok ${count(slower, 'ok')}, inconclusive ${count(slower, 'inconclusive')}; CPU/request change as the gate measured it: median ${round(median(effect), 1)}% (${round(Math.min(...effect), 1)}…${round(Math.max(...effect), 1)}), identical code ${round(median(noise), 1)}% (${round(Math.min(...noise), 1)}…${round(Math.max(...noise), 1)})`,
    },
    {
      id: `gate-apps-${id}-seconds`,
      name: `${app.name}: time a gate took`,
      median: round(median(secs), 0),
      min: Math.min(...secs),
      max: Math.max(...secs),
      unit: 's',
      target: 'info',
      pass: null,
      note: `rounds: median ${median(results.map((r) => r.rounds))}, most ${Math.max(...results.map((r) => r.rounds))}`,
    },
  ];
}

async function main(): Promise<void> {
  const started = Date.now();
  const root = tmpDir('hotline-gate-apps-');
  const all: Record<string, GateResult[]> = {};
  const figures: Figure[] = [];
  const wanted = process.env.HOTLINE_BENCH_GATE_APPS?.split(',');
  try {
    for (const [k, app] of APPS.entries()) {
      if (wanted && !wanted.includes(app.id)) continue;
      const dirs = versions(app, fs.mkdtempSync(path.join(root, `${k}-`)));
      const results: GateResult[] = [];
      for (let i = 0; i < GATES; i++) {
        progress(`${app.name}: A beside A ${i + 1}/${GATES}`);
        results.push(await gate(app, dirs.a, dirs.a2, 'A|A'));
        progress(`${app.name}: A beside B ${i + 1}/${GATES}`);
        results.push(await gate(app, dirs.a, dirs.b, 'A|B'));
        const last = results.slice(-2);
        progress(
          `  → ${last.map((r) => `${r.pair} ${r.outcome} (${r.rounds} rounds, ${r.cpuChangePct}%)`).join(', ')}`,
        );
      }
      all[app.name] = results;
      figures.push(...figuresOf(app, results));
      // Each app's on disk as it ends: a later app's failure keeps what was measured.
      write(`gate-apps-${app.id}.json`, { figures: figuresOf(app, results), gates: results });
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  write('gate-apps.json', {
    date: new Date().toISOString(),
    quick: QUICK,
    durationS: Math.round((Date.now() - started) / 1000),
    machine: { cores: os.cpus().length, node: process.version, loadAverageAtEnd: os.loadavg().map((x) => round(x, 2)) },
    figures,
    gates: all,
  });
  for (const f of figures)
    process.stdout.write(
      `${f.pass === null ? 'INFO' : f.pass ? 'PASS' : 'MISS'}  ${f.name}: ${f.median} ${f.unit} (target ${f.target})${f.note ? ` — ${f.note}` : ''}\n`,
    );
}

function write(file: string, value: unknown): void {
  fs.mkdirSync(path.join(BENCH_DIR, 'out'), { recursive: true });
  fs.writeFileSync(path.join(BENCH_DIR, 'out', file), JSON.stringify(value, null, 1));
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
