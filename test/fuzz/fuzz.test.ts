// Bad input: at least 1,000 malformed, truncated, huge-valued and adversarial .cpuprofile inputs
// (test/helpers/fuzz-gen.ts says which) through the analysis and the loader the editor uses
// (analyzeFile). Each must give a typed error or a valid result: never an untyped exception,
// never a hang, never a read outside the root, never a changed prototype.
//
// Families (counts at the default 1,200; test/helpers/fuzz-gen.ts builds them): huge (the
// 10M-sample profile, in memory, timed), shapes (100k-deep chains, 100k-wide nodes, 100k-deep
// JSON nesting, 10 MB strings, 200k missing files), structure (ids and children: missing,
// duplicate, cycles, two parents, no root, two roots, orphans), fields (deleted, duplicated,
// retyped, duplicate JSON keys), truncated (JSON cut and corrupted), types (wrong types at random
// paths), numbers (NaN, ±Infinity, 1e300, 2^53, negative), samples (vs. nodes and deltas), names
// (unicode, __proto__/constructor/toString), urls (non-file URLs, file: URLs leaving the root
// through .., %2e%2e, symlinks, a named pipe, /dev/zero), odd (valid but odd), merge (segments
// merged as a run does), sourcemaps (corrupt and hostile maps), files (analyzeFile on a 0-byte
// file, a folder, non-UTF-8, BOMs, a bad coverage.json beside it).
//
// Typed errors: ProfileFormatError; and, for the `files` family only, Node's fs errors for the
// profile path itself (ENOENT, EISDIR, ELOOP), which the CLI and the language server report.
//
// The cases run in two child processes (test/helpers/fuzz-child.ts) with a limit of CPU time
// each (and of time by the clock, five times longer, for a case that blocks), so a hang or a
// process-killing crash is counted instead of freezing the suite. Deterministic:
//   HOTLINE_FUZZ_SEED=<n>        the seed (printed; default fixed)
//   HOTLINE_FUZZ_COUNT=<n>       how many cases (default 1200; the fixed hard cases always run)
//   HOTLINE_FUZZ_ONLY=fam:i,…    only these cases (the reproducer of a failure)
//   HOTLINE_FUZZ_LOG=<file>      write every case's outcome there (JSON lines)
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import type { CaseReply, CaseRequest } from '../helpers/fuzz-child.ts';
import {
  DEFAULT_TIMEOUT_MS,
  FAMILIES,
  HUGE_SAMPLES,
  planCases,
  type CaseResult,
  type PlannedCase,
} from '../helpers/fuzz-gen.ts';

const SEED = Number(process.env.HOTLINE_FUZZ_SEED ?? 20251121) >>> 0;
const COUNT = Number(process.env.HOTLINE_FUZZ_COUNT ?? 1200);
const ONLY = process.env.HOTLINE_FUZZ_ONLY;
const REPO = path.resolve(__dirname, '..', '..');
const CHILD = path.join(REPO, 'test', 'helpers', 'fuzz-child.ts');

/** How much longer than its CPU budget a case may take by the clock (it may be blocked, not busy). */
const WALL_FACTOR = 5;
const CLOCK_TICKS_PER_S = 100; // USER_HZ: the unit of /proc/<pid>/stat's times on Linux

/** CPU ms process `pid` has used (user + system), from /proc; undefined where there is none. */
function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // utime and stime: fields 14, 15
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return undefined;
  }
}

type Done = PlannedCase & {
  result: CaseResult | { outcome: 'hang'; note: string; message: string; type?: string; info?: undefined };
  ms: number;
};

/** One child process at a time; replaced when a case hangs or kills it. */
class Runner {
  private proc?: ChildProcess;
  private stderr = '';
  private nextId = 0;
  /** The case in flight: only its own process may answer or end it. */
  private pending?: {
    proc: ChildProcess;
    id: number;
    note: string;
    settle(r: CaseReply | { exited: string; note: string }): void;
  };
  private static readonly all: ChildProcess[] = [];

  constructor(private readonly tmp: string) {}

  private start(): Promise<void> {
    const dir = fs.mkdtempSync(path.join(this.tmp, 'child-'));
    this.stderr = '';
    const proc = fork(CHILD, [dir], {
      cwd: REPO,
      execArgv: ['--import', 'tsx', '--max-old-space-size=4096'],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    Runner.all.push(proc);
    this.proc = proc;
    proc.stderr!.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`fuzz child did not start in 60 s: ${this.stderr}`));
      }, 60_000);
      proc.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (this.proc === proc) this.proc = undefined;
        const p = this.pending;
        if (p?.proc === proc) {
          this.pending = undefined;
          p.settle({
            note: p.note,
            exited: `the process exited (code ${code}, signal ${signal}): ${this.stderr.trim().split('\n').slice(-6).join(' | ')}`,
          });
        }
        reject(new Error(`fuzz child did not start: ${this.stderr}`));
      });
      proc.on('message', (m: CaseReply | { ready: true } | { started: number; note: string }) => {
        if ('ready' in m) {
          clearTimeout(timer);
          return resolve();
        }
        const p = this.pending;
        if (p?.proc !== proc) return;
        if ('started' in m) {
          if (m.started === p.id) p.note = m.note;
          return;
        }
        if (m.id !== p.id) return;
        this.pending = undefined;
        p.settle(m);
      });
    });
  }

  async run(c: PlannedCase): Promise<Done> {
    if (!this.proc) await this.start();
    const proc = this.proc!;
    const id = ++this.nextId;
    const t = performance.now();
    const cpuAtStart = cpuMsOf(proc.pid!);
    let note = '';
    let why = '';
    const answer = await new Promise<CaseReply | { exited: string; note: string } | 'timeout'>((resolve) => {
      // A case hangs when its process spends timeoutMs of CPU on it (a loop), or blocks for
      // WALL_FACTOR times that (a read that never returns): CPU time, unlike the clock, does not
      // stretch when other work loads the machine. Without /proc, the clock alone.
      const check = setInterval(() => {
        const cpu = cpuMsOf(proc.pid!);
        const wall = performance.now() - t;
        if (cpuAtStart !== undefined && cpu !== undefined && cpu - cpuAtStart > c.timeoutMs)
          why = `${c.timeoutMs / 1000} s of CPU`;
        else if (wall > (cpuAtStart === undefined ? 1 : WALL_FACTOR) * c.timeoutMs)
          why = `${(wall / 1000).toFixed(0)} s`;
        else return;
        clearInterval(check);
        note = this.pending?.note ?? '';
        this.pending = undefined;
        resolve('timeout');
      }, 250);
      this.pending = {
        proc,
        id,
        note: '',
        settle: (r) => {
          clearInterval(check);
          resolve(r);
        },
      };
      proc.send({ id, seed: SEED, family: c.family, index: c.index } satisfies CaseRequest);
    });
    const ms = performance.now() - t;
    if (answer === 'timeout') {
      this.kill();
      return { ...c, ms, result: { outcome: 'hang', note, message: `no answer after ${why}` } };
    }
    if ('exited' in answer)
      return {
        ...c,
        ms,
        result: { outcome: 'crash', type: 'process died', note: answer.note, message: answer.exited },
      };
    return { ...c, ms: answer.ms, result: answer.result };
  }

  kill(): void {
    const proc = this.proc;
    this.proc = undefined;
    this.pending = undefined;
    proc?.kill('SIGKILL');
  }

  /** Every process any runner started, whatever state it is in. */
  static killAll(): void {
    for (const proc of Runner.all.splice(0))
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
}

function selectCases(): PlannedCase[] {
  if (!ONLY) return planCases(COUNT);
  return ONLY.split(',').map((s) => {
    const [family, index] = s.trim().split(':');
    const f = FAMILIES.find((x) => x.name === family);
    assert.ok(f, `HOTLINE_FUZZ_ONLY: no family ${family} (${FAMILIES.map((x) => x.name).join(', ')})`);
    return { family, index: Number(index), timeoutMs: f.timeoutMs ?? DEFAULT_TIMEOUT_MS };
  });
}

test(
  'fuzz: bad .cpuprofile inputs give a typed error or a valid result, never a crash or a hang',
  { timeout: 20 * 60_000 },
  async (t) => {
    const started = performance.now();
    const cases = selectCases();
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-fuzz-')));
    const workers = Math.max(1, Math.min(2, os.availableParallelism()));
    console.log(`fuzz: seed ${SEED} (HOTLINE_FUZZ_SEED), ${cases.length} cases, ${workers} processes`);
    const runners = Array.from({ length: workers }, () => new Runner(tmp));
    const queue = [...cases];
    const done: Done[] = [];
    try {
      await Promise.all(
        runners.map(async (r) => {
          for (let c = queue.shift(); c; c = queue.shift()) done.push(await r.run(c));
        }),
      );
    } finally {
      Runner.killAll();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    const seconds = (performance.now() - started) / 1000;

    // Per family: outcomes; overall: which typed errors, the slowest cases, the 10M timing.
    const rows = FAMILIES.map((f) => {
      const mine = done.filter((d) => d.family === f.name);
      const n = (o: string): number => mine.filter((d) => d.result.outcome === o).length;
      return {
        family: f.name,
        cases: mine.length,
        valid: n('valid'),
        typed: n('typed'),
        crash: n('crash'),
        invalid: n('invalid'),
        hang: n('hang'),
      };
    }).filter((r) => r.cases > 0);
    console.log(
      [
        'family        cases  valid  typed  crash  invalid  hang',
        ...rows.map(
          (r) =>
            `${r.family.padEnd(12)} ${String(r.cases).padStart(6)} ${String(r.valid).padStart(6)} ${String(r.typed).padStart(6)} ${String(r.crash).padStart(6)} ${String(r.invalid).padStart(8)} ${String(r.hang).padStart(5)}`,
        ),
      ].join('\n'),
    );
    const typed = new Map<string, number>();
    for (const d of done)
      if (d.result.outcome === 'typed') typed.set(d.result.type ?? '?', (typed.get(d.result.type ?? '?') ?? 0) + 1);
    console.log(`fuzz: typed errors: ${[...typed].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`);
    const slow = [...done].sort((a, b) => b.ms - a.ms).slice(0, 5);
    console.log(
      `fuzz: slowest: ${slow.map((d) => `${d.family}:${d.index} ${(d.ms / 1000).toFixed(1)} s (${d.result.note.slice(0, 60)})`).join('; ')}`,
    );
    const huge = done.find((d) => d.family === 'huge');
    if (huge?.result.info) {
      const i = huge.result.info;
      const line = `fuzz: ${HUGE_SAMPLES / 1e6}M-sample profile: built in ${i.buildMs} ms, readCpuProfile ${i.readMs} ms, analyzeProfile ${i.analyzeMs} ms (case ${(huge.ms / 1000).toFixed(1)} s)`;
      t.diagnostic(line);
    }
    // The read recorder must have seen the fixtures' sources, or the "nothing outside the root" check proves nothing.
    const reads = done.reduce((s, d) => s + (d.result.info?.reads ?? 0), 0);
    console.log(`fuzz: ${reads} file reads by the loader checked to stay inside the root`);
    if (!ONLY) assert.ok(reads > 0, 'the fs read recorder saw no reads');

    if (process.env.HOTLINE_FUZZ_LOG)
      fs.writeFileSync(process.env.HOTLINE_FUZZ_LOG, done.map((d) => JSON.stringify(d)).join('\n'));
    const failed = done.filter(
      (d) => d.result.outcome === 'crash' || d.result.outcome === 'hang' || d.result.outcome === 'invalid',
    );
    const count = (o: string): number => done.filter((d) => d.result.outcome === o).length;
    for (const d of failed.slice(0, 10)) {
      console.log(
        [
          `fuzz FAILED ${d.result.outcome}: family ${d.family}, seed ${SEED}, case ${d.index}: ${d.result.note.slice(0, 300)}`,
          `  ${d.result.type ?? ''} ${d.result.message ?? ''}`.slice(0, 600),
          ...(d.result.outcome !== 'hang' && 'stack' in d.result && d.result.stack
            ? [
                d.result.stack
                  .split('\n')
                  .slice(1, 6)
                  .map((l) => `  ${l.trim()}`)
                  .join('\n'),
              ]
            : []),
          `  reproduce: HOTLINE_FUZZ_SEED=${SEED} HOTLINE_FUZZ_ONLY=${d.family}:${d.index} node --import tsx --test test/fuzz/fuzz.test.ts`,
        ].join('\n'),
      );
    }
    console.log(`fuzz: ${done.length} profiles in ${seconds.toFixed(1)} s`);
    const summary = `fuzz: ${done.length} profiles, ${count('crash')} crashes, ${count('hang')} hangs, ${count('invalid')} invalid results`;
    console.log(summary);
    t.diagnostic(summary);
    assert.equal(done.length, cases.length);
    assert.equal(
      failed.length,
      0,
      `${failed.length} cases crashed, hung or gave an invalid result: ${failed
        .slice(0, 5)
        .map((d) => `${d.family}:${d.index}`)
        .join(', ')}`,
    );
  },
);
