// What every figure module shares: the result shape, the A B A B … alternation, the statistics,
// progress on stderr, and the short settings of HOTLINE_BENCH_QUICK=1 (for developing the bench).
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as fs from 'node:fs';
import type { StackCapturesV1 } from '../src/core/capture/stacks/stack-sampler.ts';
import { STACKS_FILE } from '../src/core/store/index.ts';

export const BENCH_DIR = __dirname;
export const REPO = path.resolve(BENCH_DIR, '..');
export const QUICK = process.env.HOTLINE_BENCH_QUICK === '1';
/** Pairs per alternated figure: the issue asks for at least 5. */
export const PAIRS = QUICK ? 2 : 5;

export interface Figure {
  id: string;
  name: string;
  /** The ratio's median (or the single reading), in `unit`. */
  median: number | null;
  min?: number;
  max?: number;
  unit: string;
  /** "<= 1.05", ">= 0.98" … */
  target: string;
  pass: boolean | null;
  /** Each pair's A, B and ratio, or whatever readings the figure has. */
  samples?: unknown;
  note?: string;
}

export function progress(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

export const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** A ratio figure from alternated pairs: median and min–max of a/b. */
export function ratioFigure(
  f: Omit<Figure, 'median' | 'min' | 'max' | 'pass'> & {
    pairs: Array<{ a: number; b: number }>;
    atMost?: number;
    atLeast?: number;
    invert?: boolean;
  },
): Figure {
  const ratios = f.pairs.map((p) => (f.invert ? p.b / p.a : p.a / p.b)).filter(Number.isFinite);
  const m = ratios.length > 0 ? median(ratios) : null;
  const pass =
    m === null ? null : f.atMost !== undefined ? m <= f.atMost : f.atLeast !== undefined ? m >= f.atLeast : null;
  const { pairs, atMost: _m, atLeast: _l, invert: _i, ...rest } = f;
  return {
    ...rest,
    median: m === null ? null : round(m),
    min: ratios.length ? round(Math.min(...ratios)) : undefined,
    max: ratios.length ? round(Math.max(...ratios)) : undefined,
    pass,
    samples: pairs.map((p, i) => ({ a: round(p.a), b: round(p.b), ratio: round(ratios[i] ?? NaN) })),
  };
}

/** Runs `a` then `b`, `pairs` times (A B A B …), so drift of the machine hits both alike. */
export async function alternate<T>(
  pairs: number,
  label: string,
  a: () => Promise<T>,
  b: () => Promise<T>,
): Promise<Array<{ a: T; b: T }>> {
  const out: Array<{ a: T; b: T }> = [];
  for (let i = 0; i < pairs; i++) {
    progress(`${label}: pair ${i + 1}/${pairs} A`);
    const ra = await a();
    progress(`${label}: pair ${i + 1}/${pairs} B`);
    const rb = await b();
    out.push({ a: ra, b: rb });
  }
  return out;
}

export function tmpDir(prefix: string): string {
  return fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', prefix));
}

/** A figure that could not be measured here: shown as MISS with the reason. */
export function unavailable(id: string, name: string, target: string, unit: string, why: string): Figure {
  return { id, name, median: null, unit, target, pass: false, note: `not measured: ${why}` };
}

/** One CPU-bound process beside the bench, in its own session (as another user's job). */
export function burner(): () => void {
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore', detached: true });
  return () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
}

/** Saved runs of the truth apps whose time is in two `pbkdf2Sync` calls of 2:1 (their captures land at each call's end). */
export function truthPbkdf2Runs(): string[] {
  const out: string[] = [];
  for (const app of ['two-levels', 'helper-two-sites', 'two-calls']) {
    const dir = path.join(REPO, 'test', 'apps', 'truth', app, '.hotline', 'runs');
    if (!fs.existsSync(dir)) continue;
    for (const run of fs.readdirSync(dir).sort()) out.push(path.join(dir, run));
  }
  return out;
}

/** A saved run's stack captures with their send and run moments; none when the run has no stacks.json. */
export function readSavedStacks(runDir: string): Partial<StackCapturesV1> | undefined {
  const file = path.join(runDir, STACKS_FILE);
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<StackCapturesV1>;
}

/** The login example's request, as `hotline profile`/`gate` take it (the gate benches' crypto app). */
export const LOGIN_ARGS = [
  '--entry',
  'server.js',
  '--url',
  '/login',
  '--method',
  'POST',
  '--header',
  'content-type:application/json',
  '--body',
  '{"email":"alice@example.com","password":"correct horse battery staple"}',
];
