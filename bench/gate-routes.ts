// `hotline gate` per route (issue 35): bench/apps/gate-routes.js, five routes loaded as a mix of
// equal weights, identical code (A) beside A and A beside B (ORDERS_SCALE=1.1: GET /orders/{n}'s
// hot line 10% costlier, the other four routes unchanged), each gate as `hotline gate` runs it
// (capture/side-by-side.ts with its sequential extension, verdicts/gate.ts at 5%). Counts:
// - caught: A beside B failed, GET /orders/{n} among the routes it named slower (target ≥ 19/20);
// - others flagged: routes other than /orders named slower in A beside B (target 0);
// - false alarms: A beside A failed (target 0/20).
// Run: node --import tsx bench/gate-routes.ts [N]   (N gates of each kind, default 20; N=1 to try it)
//   HOTLINE_BENCH_DURATION=S (load per version per look, default 10), HOTLINE_BENCH_MAX_TIME=S
//   (each gate's budget, default 270). Each gate's figures and verdict go to bench/out/gate-routes.json.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compareSideBySide, type SideBySideFigures } from '../src/core/verdicts/compare-side-by-side.ts';
import { regressionGate, type GateVerdict } from '../src/core/verdicts/gate.ts';
import { measureSideBySide } from '../src/core/capture/side-by-side.ts';
import type { MixRequest } from '../src/core/load/mix-types.ts';
import { APPS_DIR } from './apps.ts';
import { BENCH_DIR, progress } from './common.ts';

const N = Number(process.argv[2] ?? 20);
const THRESHOLD_PCT = 5;
const DURATION_S = Number(process.env.HOTLINE_BENCH_DURATION ?? 10);
const MAX_TIME_S = Number(process.env.HOTLINE_BENCH_MAX_TIME ?? 270);
const SLOWER = 'GET /orders/{n}';

const MIX: MixRequest[] = ['/orders/17', '/users/42', '/search?q=shoes', '/report', '/health'].map((p) => ({
  method: 'GET',
  path: p,
  headers: {},
  weight: 1,
}));

const version = (ordersScale?: string): { cwd: string; entry: string; env?: Record<string, string> } => ({
  cwd: APPS_DIR,
  entry: 'gate-routes.js',
  ...(ordersScale ? { env: { ORDERS_SCALE: ordersScale } } : {}),
});

const gateOptions = (f: SideBySideFigures): { pickMeasure: true; confidence?: number } => ({
  pickMeasure: true,
  ...(f.confidence !== undefined ? { confidence: f.confidence } : {}),
});

/** One gate as `hotline gate` takes it: rounds added while it cannot decide, within its budget. */
async function gate(
  current: ReturnType<typeof version>,
): Promise<{ figures: SideBySideFigures; verdict: GateVerdict }> {
  const figures = await measureSideBySide({
    url: MIX[0].path,
    requests: MIX,
    durationS: DURATION_S,
    base: version(),
    current,
    extend: {
      maxRounds: 100,
      maxTimeS: MAX_TIME_S,
      decided: (f) => {
        const v = regressionGate(compareSideBySide(f, f.confidence), THRESHOLD_PCT, gateOptions(f));
        return !v.decided || v.failed || (!v.inconclusive && v.routesSuspect !== true);
      },
    },
  });
  const verdict = regressionGate(compareSideBySide(figures, figures.confidence), THRESHOLD_PCT, gateOptions(figures));
  return { figures, verdict };
}

const slowerRoutes = (v: GateVerdict): string[] =>
  v.decided ? (v.routes ?? []).filter((r) => r.outcome === 'regressed').map((r) => `${r.method} ${r.route}`) : [];

function summary(v: GateVerdict): string {
  if (!v.decided) return `undecided: ${v.reason}`;
  const routes = (v.routes ?? [])
    .map(
      (r) =>
        `${r.method} ${r.route} ${r.changePct > 0 ? '+' : ''}${r.changePct}% [${r.lowPct}, ${r.highPct}] ${r.outcome}`,
    )
    .join('; ');
  const whole = v.checks
    .filter((c) => c.notGated === undefined)
    .map((c) => `${c.figure} ${c.changePct > 0 ? '+' : ''}${c.changePct}% ${c.outcome}`)
    .join(', ');
  return `${v.failed ? 'FAIL' : v.inconclusive ? 'INCONCLUSIVE' : 'pass'} — whole: ${whole} — routes: ${routes}`;
}

async function main(): Promise<void> {
  const same: Array<{ verdict: GateVerdict; rounds: number; seconds: number }> = [];
  const slower: typeof same = [];
  const out: unknown[] = [];
  for (let i = 0; i < N; i++) {
    for (const [kind, list, current] of [
      ['A beside A', same, version()],
      ['A beside B (orders +10%)', slower, version('1.1')],
    ] as const) {
      progress(`gate per route: ${kind} ${i + 1}/${N}`);
      const t0 = Date.now();
      const { figures, verdict } = await gate(current);
      const seconds = Math.round((Date.now() - t0) / 1000);
      list.push({ verdict, rounds: figures.rounds, seconds });
      out.push({ kind, figures, verdict });
      progress(`  ${figures.rounds} rounds, ${seconds} s: ${summary(verdict)}`);
    }
  }
  fs.mkdirSync(path.join(BENCH_DIR, 'out'), { recursive: true });
  fs.writeFileSync(path.join(BENCH_DIR, 'out', 'gate-routes.json'), JSON.stringify(out, null, 1));
  const failed = (x: { verdict: GateVerdict }): boolean => x.verdict.decided && x.verdict.failed;
  const caught = slower.filter((x) => failed(x) && slowerRoutes(x.verdict).includes(SLOWER)).length;
  const others = slower.reduce((t, x) => t + slowerRoutes(x.verdict).filter((r) => r !== SLOWER).length, 0);
  const falseAlarms = same.filter(failed).length;
  const inconclusive = (xs: typeof same): number =>
    xs.filter((x) => x.verdict.decided && x.verdict.inconclusive).length;
  const secs = [...same, ...slower].map((x) => x.seconds).sort((a, b) => a - b);
  process.stdout.write(
    [
      `gate per route, ${N} + ${N} gates at --fail-if-slower ${THRESHOLD_PCT}% (bench/apps/gate-routes.js, 5 routes):`,
      `  caught (${SLOWER} named slower): ${caught} of ${N}   (target ≥ ${Math.ceil((N * 19) / 20)})`,
      `  other routes named slower in those gates: ${others}   (target 0)`,
      `  false alarms on identical code: ${falseAlarms} of ${N}   (target 0)`,
      `  inconclusive: ${inconclusive(same)} identical, ${inconclusive(slower)} slower`,
      `  seconds a gate: ${secs[0]}–${secs[secs.length - 1]}`,
      '',
    ].join('\n'),
  );
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
