// Issue 24, item 6: does anything Hotline runs beside the app slow it in the measured window?
// The req/s of a run's measured sub-windows ÷ the req/s of the same app started plainly
// (`node app.js`) under plain autocannon (its own CLI, the same connections, a warm-up run then a
// window as long as the measured sub-windows together), alternating A B A B, on a quiet machine
// and with one CPU-bound process running beside. Two apps not written for this bench's
// convenience: a JSON API (~0.5 ms of JavaScript a request) and one that logs every request.
//
//   node --import tsx bench/autocannon-ratio.ts            (5 pairs per app and condition)
//   HOTLINE_BENCH_QUICK=1 node --import tsx bench/autocannon-ratio.ts
//
// Prints one line per figure and writes bench/out/autocannon-ratio.json.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { HONEST_LOAD } from './honest.ts';
import { APP_URL, hotlineRun, startPlain, type AppName } from './apps.ts';
import { BENCH_DIR, PAIRS, REPO, alternate, burner, progress, ratioFigure, type Figure } from './common.ts';

const run = promisify(execFile);
const AUTOCANNON = path.join(REPO, 'node_modules', 'autocannon', 'autocannon.js');
const APPS: AppName[] = ['json-api', 'logging'];

/** req/s of plain autocannon against the app started plainly: a warm-up run, then the window. */
async function plainAutocannon(app: AppName): Promise<number> {
  const plain = await startPlain(app);
  try {
    const url = `http://127.0.0.1:${plain.port}${APP_URL[app]}`;
    const c = String(HONEST_LOAD.connections);
    await run(process.execPath, [AUTOCANNON, '-c', c, '-d', String(HONEST_LOAD.warmupS), '-j', url], {
      maxBuffer: 1 << 24,
    });
    const { stdout } = await run(
      process.execPath,
      [AUTOCANNON, '-c', c, '-d', String(HONEST_LOAD.durationS), '-j', url],
      {
        maxBuffer: 1 << 24,
      },
    );
    const r = JSON.parse(stdout) as { requests: { total: number }; duration: number; non2xx: number; errors: number };
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`autocannon saw ${r.non2xx} non-2xx and ${r.errors} errors`);
    return r.requests.total / r.duration;
  } finally {
    await plain.stop();
  }
}

async function main(): Promise<void> {
  const figures: Figure[] = [];
  for (const condition of ['quiet', 'one CPU-bound process beside'] as const) {
    const stopBurner = condition === 'quiet' ? () => undefined : burner();
    try {
      for (const app of APPS) {
        const pairs = await alternate(
          PAIRS,
          `${app}, ${condition}`,
          () => plainAutocannon(app),
          async () => (await hotlineRun(app, HONEST_LOAD)).load.requests.perSecond,
        );
        const figure = ratioFigure({
          id: `autocannon-${app}-${condition === 'quiet' ? 'quiet' : 'busy'}`,
          name: `${app}, ${condition}: measured-window req/s ÷ plain autocannon req/s`,
          unit: '×',
          target: '>= 0.97',
          atLeast: 0.97,
          invert: true,
          pairs: pairs.map((p) => ({ a: p.a, b: p.b })),
          note: `${HONEST_LOAD.connections} connections, ${HONEST_LOAD.durationS} s windows; a = plain autocannon req/s, b = Hotline measured req/s`,
        });
        figures.push(figure);
        progress(
          `${figure.name}: median ${figure.median} (${figure.min}–${figure.max}) ${figure.pass ? 'PASS' : 'MISS'}`,
        );
      }
    } finally {
      stopBurner();
    }
  }
  const out = path.join(BENCH_DIR, 'out');
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(out, 'autocannon-ratio.json');
  fs.writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), pairs: PAIRS, figures }, null, 2));
  for (const f of figures)
    console.log(`${f.median?.toFixed(3) ?? '—'}  ${f.min}–${f.max}  ${f.pass ? 'PASS' : 'MISS'}  ${f.name}`);
  console.log(`written ${path.relative(REPO, file)}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
