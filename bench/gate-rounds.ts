// Where a gate's noise comes from (issue 24): gates of identical code (A beside A, two folders),
// a fixed number of rounds each, read from each gate's own saved figures (.hotline/gates/*.json):
// per gate, the mean log ratio of CPU/request over its rounds and its standard error from those
// rounds; over the gates, χ² = Σ (mean ÷ SE)². Were the rounds all the noise, χ² would be about the
// number of gates; much more means each gate (its two processes, started afresh) carries an
// offset of its own that its rounds cannot see, and the spread of that offset is printed.
//
// Each version started once for all rounds (`--one-start`), the offset's home; with
// HOTLINE_BENCH_GATE_FRESH=1 both afresh each round (the gate's default), where χ² should fall
// to about the number of gates, the offset now inside each gate's rounds.
//
//   node --import tsx bench/gate-rounds.ts                       (8 gates of 15 rounds, logging app)
//   HOTLINE_BENCH_GATE_APP=json-api.js HOTLINE_BENCH_GATES=4 node --import tsx bench/gate-rounds.ts
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { BENCH_DIR, QUICK, REPO, progress, round, tmpDir } from './common.ts';

const run = promisify(execFile);
const APP = process.env.HOTLINE_BENCH_GATE_APP ?? 'logging.js';
const GATES = QUICK ? 2 : Number(process.env.HOTLINE_BENCH_GATES) || 8;
const ROUNDS = QUICK ? 4 : 15;
const FRESH = process.env.HOTLINE_BENCH_GATE_FRESH === '1';

interface Window {
  cpuMsPerRequest: number;
}

async function gate(a: string, a2: string): Promise<number[]> {
  const args = [path.join(REPO, 'bin', 'hotline.js'), 'gate', a, a2, '--entry', APP, '--url', '/products?min=20'];
  args.push('--rounds', String(ROUNDS), '--max-rounds', String(ROUNDS), '--duration', String(2 * ROUNDS), '--json');
  if (!FRESH) args.push('--one-start');
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, args, { maxBuffer: 1 << 26, timeout: 600_000 }));
  } catch (err) {
    // Exit 3/4 (regressed, inconclusive) still print the JSON.
    const e = err as { stdout?: string; code?: number; stderr?: string };
    if (!e.stdout) throw new Error(`gate failed (exit ${e.code}): ${e.stderr?.slice(-400)}`);
    stdout = e.stdout;
  }
  const f = (JSON.parse(stdout) as { figures: { base: { windows: Window[] }; current: { windows: Window[] } } })
    .figures;
  return f.base.windows.map((b, i) => Math.log(f.current.windows[i].cpuMsPerRequest / b.cpuMsPerRequest));
}

async function main(): Promise<void> {
  const root = tmpDir('hotline-gate-rounds-');
  const dirs = [path.join(root, 'a'), path.join(root, 'a2')];
  const source = path.join(BENCH_DIR, 'apps');
  for (const dir of dirs) {
    fs.mkdirSync(dir);
    for (const f of fs.readdirSync(source))
      if (fs.statSync(path.join(source, f)).isFile()) fs.copyFileSync(path.join(source, f), path.join(dir, f));
  }
  const gates: Array<{ meanPct: number; sePct: number; sdPct: number }> = [];
  try {
    for (let i = 0; i < GATES; i++) {
      progress(
        `${APP}: A beside A, gate ${i + 1}/${GATES} of ${ROUNDS} rounds, started ${FRESH ? 'afresh each round' : 'once'}`,
      );
      const xs = await gate(dirs[0], dirs[1]);
      const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1));
      gates.push({
        meanPct: round(mean * 100, 2),
        sePct: round((sd / Math.sqrt(xs.length)) * 100, 2),
        sdPct: round(sd * 100, 2),
      });
      progress(`  → mean ${gates[i].meanPct}% ± ${gates[i].sePct}% (one round's SD ${gates[i].sdPct}%)`);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const chi2 = gates.reduce((s, g) => s + (g.meanPct / g.sePct) ** 2, 0);
  const between =
    gates.reduce((s, g) => s + g.meanPct ** 2, 0) / gates.length -
    gates.reduce((s, g) => s + g.sePct ** 2, 0) / gates.length;
  const out = {
    app: APP,
    rounds: ROUNDS,
    started: FRESH ? 'afresh each round' : 'once',
    gates,
    chi2: round(chi2, 1),
    degreesOfFreedom: gates.length,
    gateOffsetSdPct: between > 0 ? round(Math.sqrt(between), 2) : 0,
  };
  console.log(JSON.stringify(out, null, 1));
  fs.mkdirSync(path.join(BENCH_DIR, 'out'), { recursive: true });
  fs.writeFileSync(
    path.join(BENCH_DIR, 'out', `gate-rounds-${path.basename(APP, '.js')}-${FRESH ? 'fresh' : 'once'}.json`),
    JSON.stringify(out, null, 1),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
