// `hotline gate BASE DIR` as CI runs it: two versions of a constructed app, started side by side
// and loaded in turn. The current version's hot loop does twice the iterations (a regression no
// noise can hide), or the same (identical code must pass); Ctrl-C stops both versions.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import {
  FIXED_PORT_APP,
  LeakGuard,
  freePort,
  RUN_TEST_TIMEOUT,
  assertBuilt,
  descendantsOf,
  isRunning,
  removeTempDirs,
  runCli,
  startCli,
  tempDir,
  type CliResult,
} from '../helpers/integration.ts';
import type { SubWindowFigures } from '../../src/core/report/schema.ts';
import { waitFor } from '../helpers/waits.ts';

const show = (r: CliResult): string =>
  `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\n--- stdout ---\n${r.stdout.slice(-3000)}\n--- stderr ---\n${r.stderr.slice(-3000)}`;

/** A server whose every request is one hot loop of `iterations`. */
const app = (iterations: number): string => `'use strict';
const http = require('node:http');
function work(seed) {
  let h = seed | 0;
  for (let i = 0; i < ${iterations}; i++) h = (Math.imul(h, 31) + i) | 0;
  return h;
}
http
  .createServer((req, res) => res.end(String(work(req.url.length))))
  .listen(Number(process.env.PORT) || 3000, '127.0.0.1');
`;

/** A parent folder with the versions as sub-folders: base, and one per name given. */
function versions(defs: Record<string, number>): Record<string, string> {
  const root = tempDir('hotline-gate-');
  const out: Record<string, string> = {};
  for (const [name, iterations] of Object.entries(defs)) {
    const dir = path.join(root, name);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'server.js'), app(iterations));
    out[name] = dir;
  }
  return out;
}

/** The rounds' CPU per request of each version, for a failure's message. */
function windowsOf(stdout: string): string {
  try {
    const f = (JSON.parse(stdout) as { figures: Record<'base' | 'current', { windows: SubWindowFigures[] }> }).figures;
    return (['base', 'current'] as const)
      .map((k) => `${k}: ${f[k].windows.map((w) => `${w.cpuMsPerRequest} ms × ${w.requests}`).join(', ')}`)
      .join('\n');
  } catch {
    return '(no JSON)';
  }
}

/** A short gate of 3 rounds; `maxRounds` 3 (the default here): no sequential extension. */
const short = (maxRounds = 3): string[] => [
  '--url',
  '/',
  '--entry',
  'server.js',
  '--duration',
  '6',
  '--rounds',
  '3',
  '--max-rounds',
  String(maxRounds),
  '--warmup',
  '1',
];
const SHORT = short();

before(assertBuilt);
after(removeTempDirs);

test(
  'a version with twice the work per request: exit 3, cpu/request REGRESSED, saved before shown',
  // Up to 10 rounds, each starting both versions afresh: 60 s for 6 in a quiet CI run.
  { timeout: 360_000 },
  async () => {
    const v = versions({ base: 200_000, slower: 400_000 });
    const guard = new LeakGuard(path.dirname(v.base));
    // Up to 10 rounds: one window in a few is far dearer on a busy machine, and the interval is of
    // the rounds' log ratios, which one such window widens. CI saw a first window of the slower
    // version at 4.6× its others (ratio 9.0 against 1.6–1.8 in the five after it): 6 rounds gave
    // [−7.6%, +445.5%], inconclusive (exit 4). The gate extends, as users' gates do within their
    // --max-time, and more rounds decide.
    const r = await runCli(['gate', v.base, v.slower, ...short(10), '--json']);
    assert.equal(r.code, 3, `${show(r)}\n--- windows ---\n${windowsOf(r.stdout)}`);
    const header = /^hotline: (\d+) rounds of 2\.0 s, the two versions loaded in turn, started afresh each round/m.exec(
      r.stderr,
    );
    assert.ok(header, show(r));
    const rounds = Number(header[1]);
    assert.ok(rounds >= 3 && rounds <= 10, show(r));
    // Each round's versions are new processes (the offset between two processes is in the rounds).
    assert.equal((r.stderr.match(/: starting both versions/g) ?? []).length, rounds, show(r));
    assert.match(r.stderr, /^hotline: gate: FAIL/m, show(r));
    const out = JSON.parse(r.stdout) as {
      figures: { freshEachRound?: boolean; base: { windows: unknown[] }; current: { windows: unknown[] } };
      comparison: { load: { cpuPerRequestMs: { changePct: number } } };
      verdict: { failed: boolean };
    };
    assert.equal(out.figures.freshEachRound, true);
    assert.equal(out.figures.base.windows.length, rounds);
    assert.equal(out.figures.current.windows.length, rounds);
    // Twice the loop: well above +50% CPU per request, whatever the machine does meanwhile.
    assert.ok(out.comparison.load.cpuPerRequestMs.changePct > 50, show(r));
    const saved = fs.readdirSync(path.join(v.slower, '.hotline', 'gates'));
    assert.equal(saved.length, 1);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(v.slower, '.hotline', 'gates', saved[0]), 'utf8')), out);
    guard.assertClean();
  },
);

test(
  'identical versions, each started once (--one-start): never a regression — a pass, or inconclusive when 3 rounds cannot rule out 5%',
  RUN_TEST_TIMEOUT,
  async () => {
    const v = versions({ base: 200_000, same: 200_000 });
    const guard = new LeakGuard(path.dirname(v.base));
    const r = await runCli(['gate', v.base, v.same, ...SHORT, '--one-start']);
    assert.match(r.stderr, /^hotline: 3 rounds of 2\.0 s, the two versions loaded in turn, started once/m, show(r));
    assert.equal((r.stderr.match(/: starting both versions/g) ?? []).length, 1, show(r));
    // ok needs the interval's worse end within 5% (verdicts/gate.ts); 3 rounds on a busy machine may
    // not get there, and then the gate says so (exit 4) rather than pass.
    assert.ok(r.code === 0 || r.code === 4, show(r));
    assert.match(
      r.stderr,
      r.code === 0 ? /^hotline: gate: pass/m : /^hotline: gate: INCONCLUSIVE — .*could be up to/m,
      show(r),
    );
    guard.assertClean();
  },
);

test('bad usage: one folder missing, no --url, a full URL: exit 2 before anything starts', async () => {
  const v = versions({ base: 1000 });
  const missing = await runCli(['gate', v.base, path.join(v.base, 'nope'), '--url', '/']);
  assert.equal(missing.code, 2, show(missing));
  assert.match(missing.stderr, /does not exist/);
  const noUrl = await runCli(['gate', v.base, v.base, '--entry', 'server.js']);
  assert.equal(noUrl.code, 2, show(noUrl));
  assert.match(noUrl.stderr, /gate needs --url/);
  const full = await runCli(['gate', v.base, v.base, '--entry', 'server.js', '--url', 'http://127.0.0.1:3000/']);
  assert.equal(full.code, 2, show(full));
  assert.match(full.stderr, /--url must be a path/);
  const rounds = await runCli(['gate', v.base, v.base, '--entry', 'server.js', '--url', '/', '--rounds', '1']);
  assert.equal(rounds.code, 2, show(rounds));
  assert.match(rounds.stderr, /--rounds must be a whole number from 2 to 100/);
  assert.doesNotMatch(full.stderr, /starting/);
});

test(
  'two versions on one port fixed in the code: exit 1, what to do, nothing left running',
  RUN_TEST_TIMEOUT,
  async () => {
    const guard = new LeakGuard(FIXED_PORT_APP);
    const port = await freePort();
    const r = await runCli(['gate', FIXED_PORT_APP, FIXED_PORT_APP, ...SHORT, '--env', `FIXED_PORT=${port}`]);
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, new RegExp(`the baseline listens on port ${port} .*take its port from PORT`), show(r));
    guard.assertClean();
  },
);

test('SIGINT in the rounds: exit 130, both versions and the load stopped', RUN_TEST_TIMEOUT, async () => {
  const v = versions({ base: 200_000, other: 200_000 });
  const guard = new LeakGuard(path.dirname(v.base));
  const cli = startCli(['gate', v.base, v.other, ...SHORT]);
  await cli.waitForStderr('round 1/');
  // Both apps, and the load runner of a window once it has started.
  const during = await waitFor('both apps and a load runner run', () => {
    const now = descendantsOf(cli.child.pid!);
    return now.length >= 3 && now;
  });
  cli.child.kill('SIGINT');
  const r = await cli.done;
  assert.equal(r.code, 130, show(r));
  assert.match(r.stderr, /Both versions and the load were stopped/);
  for (const p of during) assert.equal(isRunning(p.pid), false, `${p.pid} (${p.argv.join(' ')}) still runs`);
  guard.assertClean();
});
