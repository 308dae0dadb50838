// Load generation off the caller's thread: `LoadRun` forks the load runner (runner.ts,
// bundled to dist/load-runner.js), which drives one continuous autocannon instance and reports
// figures per phase (warmup → measured → profiled) without ever pausing the load.
// The caller times the phases; the runner measures them. Messages: runner-protocol.ts.

import { fork, type ChildProcess } from 'node:child_process';
import { bundledScript, isLoopback } from '../common/index.ts';
import {
  isLoadPhase,
  parseRunnerMessage,
  type LoadPhase,
  type LoadTick,
  type ParentMessage,
  type PhaseResult,
  type RunnerOptions,
} from './runner-protocol.ts';
import type { MixRequest } from './mix-types.ts';
import { MAX_CYCLE, wholeWeights } from './request-mix.ts';

export type { LatencySummary, LoadPhase, LoadTick, PhaseResult } from './runner-protocol.ts';

export interface LoadOptions {
  /** Full URL on a loopback host (127.0.0.0/8, localhost, ::1), http: or https:. */
  url: string;
  /** Default GET. One of GET POST PUT DELETE PATCH OPTIONS (autocannon's list, less HEAD/CONNECT/TRACE). */
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Default 10. */
  connections?: number;
  /** Default 1. */
  pipelining?: number;
  /** Per-request timeout in seconds, default 10; autocannon requires >= 1. */
  timeoutS?: number;
  /** A bound on the whole load: the generator stops by itself after it (default: when told). */
  maxDurationS?: number;
  /**
   * A request mix (request-mix.ts) instead of one request: each sent to `url`'s host and port in
   * proportion to its weight, with `headers` added to its own; `body` must then be unset.
   */
  requests?: MixRequest[];
}

export type LoadErrorCode =
  | 'bad-options' // the options were refused before anything started
  | 'runner-missing' // dist/load-runner.js not found: build first
  | 'start-failed' // the runner did not report 'started' in time
  | 'runner-failed' // the runner reported a fatal error or exited on its own
  | 'killed' // kill() was called while this operation was pending
  | 'finished'; // switchPhase/finish after finish() or after the runner ended

export interface LoadErrorContext {
  exitCode?: number | null;
  signal?: NodeJS.Signals | null;
  /** Last few KB the runner wrote to stderr/stdout. */
  outputTail?: string;
  runnerPath?: string;
}

export class LoadError extends Error {
  override readonly name = 'LoadError';
  constructor(
    readonly code: LoadErrorCode,
    message: string,
    readonly context: LoadErrorContext = {},
  ) {
    super(message);
  }
}

const START_TIMEOUT_MS = 15_000;
const OUTPUT_TAIL_CHARS = 4000;
// autocannon's methods (lib/httpMethods.js) less HEAD (its parser would wait for a body that
// never comes: every request would time out), CONNECT and TRACE.
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function bad(message: string): LoadError {
  return new LoadError('bad-options', message);
}

function positiveInt(name: string, value: number | undefined, dflt: number): number {
  const v = value ?? dflt;
  if (!Number.isInteger(v) || v < 1) throw bad(`${name} must be a whole number >= 1, got ${String(v)}`);
  return v;
}

/** Validates and defaults LoadOptions; throws LoadError('bad-options'). */
export function normalizeLoadOptions(opts: LoadOptions): RunnerOptions {
  let url: URL;
  try {
    url = new URL(opts.url);
  } catch {
    throw bad(`not a full URL: ${JSON.stringify(opts.url)} (expected e.g. http://127.0.0.1:3000/path)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw bad(`only http: and https: URLs, got ${url.protocol}`);
  if (!isLoopback(url.hostname)) {
    throw bad(`refusing to load a non-loopback host ${url.hostname}: only 127.0.0.0/8, localhost and ::1`);
  }
  const method = (opts.method ?? 'GET').toUpperCase();
  if (!METHODS.includes(method)) throw bad(`unsupported method ${method}: one of ${METHODS.join(', ')}`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    if (!HEADER_NAME.test(name)) throw bad(`invalid header name ${JSON.stringify(name)}`);
    if (typeof value !== 'string' || /[\r\n]/.test(value)) throw bad(`invalid value for header ${name}`);
    headers[name] = value;
  }
  if (opts.body !== undefined && typeof opts.body !== 'string') throw bad('body must be a string');
  const timeoutS = opts.timeoutS ?? 10;
  if (!Number.isFinite(timeoutS) || timeoutS < 1)
    throw bad(`timeoutS must be >= 1 (autocannon's minimum), got ${timeoutS}`);
  const requests = opts.requests === undefined ? undefined : checkedMix(opts.requests, opts.body);
  return {
    url: url.href,
    method,
    headers,
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    connections: positiveInt('connections', opts.connections, 10),
    pipelining: positiveInt('pipelining', opts.pipelining, 1),
    timeoutS,
    ...(opts.maxDurationS !== undefined ? { maxDurationS: opts.maxDurationS } : {}),
    ...(requests ? { requests } : {}),
  };
}

/** The mix as the runner takes it; the same checks as one request's, each request named. */
function checkedMix(requests: MixRequest[], body: string | undefined): MixRequest[] {
  if (!Array.isArray(requests) || requests.length === 0) throw bad('a request mix needs at least one request');
  if (body !== undefined) throw bad('a request mix carries its bodies per request: no body beside it');
  const out = requests.map((r, i) => {
    const where = `request ${i + 1} of the mix`;
    const method = String(r.method).toUpperCase();
    if (!METHODS.includes(method)) throw bad(`${where}: unsupported method ${method}: one of ${METHODS.join(', ')}`);
    if (typeof r.path !== 'string' || !r.path.startsWith('/') || /\s/.test(r.path))
      throw bad(`${where}: the path must start with / and hold no spaces`);
    for (const [name, value] of Object.entries(r.headers ?? {}))
      if (!HEADER_NAME.test(name) || typeof value !== 'string' || /[\r\n]/.test(value))
        throw bad(`${where}: invalid header ${JSON.stringify(name)}`);
    if (r.body !== undefined && typeof r.body !== 'string') throw bad(`${where}: body must be a string`);
    if (!(typeof r.weight === 'number' && Number.isFinite(r.weight) && r.weight > 0))
      throw bad(`${where}: weight must be a number above 0`);
    return { ...r, method, headers: { ...(r.headers ?? {}) } };
  });
  // The cycle must fit (MAX_CYCLE): refused here, before the runner starts.
  if (out.length > 1) interleaveLength(out.map((r) => r.weight));
  return out;
}

function interleaveLength(weights: number[]): void {
  const total = wholeWeights(weights).reduce((a, b) => a + b, 0);
  if (total > MAX_CYCLE)
    throw bad(`the weights make a cycle of ${total} requests (at most ${MAX_CYCLE}): use coarser weights`);
}

/** Where the runner bundle is (dist/load-runner.js; common/bundles.ts). */
export function resolveRunnerPath(): string {
  const found = bundledScript('load-runner.js', __dirname);
  if ('path' in found) return found.path;
  throw new LoadError('runner-missing', `load runner not built: ${found.missing}`);
}

/** The caller's env without inspector flags: the runner must not grab the caller's debug port. */
function runnerEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  if (env.NODE_OPTIONS) {
    env.NODE_OPTIONS = env.NODE_OPTIONS.split(/\s+/)
      .filter((t) => t !== '' && !/^--(inspect|debug)/.test(t))
      .join(' ');
  }
  return env;
}

interface Pending {
  resolve(r: PhaseResult): void;
  reject(e: LoadError): void;
}

/** One load run: owns the runner child process from start() until it exits. */
export class LoadRun {
  /** Resolves when the runner process is gone (finished, failed or killed). Never rejects. */
  readonly exited: Promise<void>;
  readonly pid: number;
  private current: LoadPhase = 'warmup';
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly totals = new Map<LoadPhase, PhaseResult>();
  private finishing = false;
  private killed = false;
  private closed = false;
  private fatal: string | null = null;
  private outputTail = '';
  private markExited!: () => void;
  private readonly ready: Promise<void>;
  private settleReady: ((err?: LoadError) => void) | null = null;

  private constructor(
    private readonly child: ChildProcess,
    private readonly runnerPath: string,
    private readonly onTick: ((t: LoadTick) => void) | undefined,
  ) {
    this.pid = child.pid ?? -1;
    this.exited = new Promise<void>((resolve) => (this.markExited = resolve));
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settleReady?.(
          new LoadError('start-failed', `load runner did not start within ${START_TIMEOUT_MS} ms`, this.context()),
        );
        this.kill();
      }, START_TIMEOUT_MS);
      this.settleReady = (err) => {
        clearTimeout(timer);
        this.settleReady = null;
        if (err) reject(err);
        else resolve();
      };
    });
    const keep = (chunk: Buffer): void => {
      this.outputTail = (this.outputTail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('message', (raw: unknown) => this.onMessage(raw));
    child.on('error', (err: Error) => {
      keep(Buffer.from(`[LoadRun] ${err.message}\n`));
      if (child.pid === undefined) this.onClose(null, null); // spawn failed: no 'close' follows
    });
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) => this.onClose(code, signal));
  }

  /** Forks the runner; resolves once autocannon is running in phase 'warmup'. */
  static start(opts: LoadOptions, onTick?: (t: LoadTick) => void): Promise<LoadRun> {
    let options: RunnerOptions;
    let runnerPath: string;
    try {
      options = normalizeLoadOptions(opts);
      runnerPath = resolveRunnerPath();
    } catch (err) {
      return Promise.reject(err);
    }
    const child = fork(runnerPath, [], {
      execArgv: [], // never inherit --inspect (port clash) or the caller's loaders (tsx)
      env: runnerEnv(),
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const run = new LoadRun(child, runnerPath, onTick);
    run.send({ type: 'start', options }, (err) => {
      if (err) run.settleReady?.(err);
    });
    return run.ready.then(
      () => run,
      (err: unknown) => {
        run.kill();
        throw err;
      },
    );
  }

  /**
   * Every sub-window of `phase` that has ended so far, as one window (its time, requests and
   * exact latency percentiles over all of them); undefined before the first one ends.
   */
  total(phase: LoadPhase): PhaseResult | undefined {
    return this.totals.get(phase);
  }

  /** The phase the runner is in, as last acknowledged. */
  get phase(): LoadPhase {
    return this.current;
  }

  /** Ends the current phase, returns its figures, and starts `next` at once (no pause, no reconnect). */
  switchPhase(next: LoadPhase): Promise<PhaseResult> {
    if (!isLoadPhase(next)) return Promise.reject(bad(`unknown phase ${String(next)}`));
    return this.request((seq) => ({ type: 'switch', seq, next })).then((r) => {
      this.current = next;
      return r;
    });
  }

  /** Ends the current phase, stops the load, and resolves with that phase's figures once the runner is gone. */
  async finish(): Promise<PhaseResult> {
    const result = this.request((seq) => ({ type: 'finish', seq }));
    this.finishing = true;
    const r = await result;
    await this.exited;
    return r;
  }

  /** Immediate stop (cancel/error). Idempotent, never throws; pending calls reject with 'killed'. */
  kill(): void {
    if (this.closed || this.killed) return;
    this.killed = true;
    this.child.kill('SIGKILL'); // failures arrive as 'error' events, not throws
  }

  private request(make: (seq: number) => ParentMessage): Promise<PhaseResult> {
    const gone = this.goneError();
    if (gone) return Promise.reject(gone);
    const seq = ++this.seq;
    return new Promise<PhaseResult>((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      this.send(make(seq), (err) => {
        if (!err) return;
        this.pending.delete(seq);
        reject(err);
      });
    });
  }

  private goneError(): LoadError | null {
    if (this.killed) return new LoadError('killed', 'load run was killed', this.context());
    if (this.finishing || this.closed) return new LoadError('finished', 'load run already finished', this.context());
    return null;
  }

  private send(msg: ParentMessage, done: (err?: LoadError) => void): void {
    if (!this.child.connected) {
      done(this.goneError() ?? new LoadError('runner-failed', 'load runner IPC channel is closed', this.context()));
      return;
    }
    this.child.send(msg, (err: Error | null) => {
      done(err ? new LoadError('runner-failed', `IPC send failed: ${err.message}`, this.context()) : undefined);
    });
  }

  private onMessage(raw: unknown): void {
    const msg = parseRunnerMessage(raw);
    if (!msg) return; // unknown or malformed: ignored by contract
    switch (msg.type) {
      case 'started':
        this.current = msg.phase;
        this.settleReady?.();
        return;
      case 'tick':
        this.onTick?.(msg.tick);
        return;
      case 'phase-result': {
        const p = this.pending.get(msg.seq);
        this.pending.delete(msg.seq);
        if (msg.total) this.totals.set(msg.total.phase, msg.total);
        p?.resolve(msg.result);
        return;
      }
      case 'fatal':
        this.fatal = msg.message; // the runner exits next; onClose rejects with this message
        return;
      default: {
        const never: never = msg;
        return never;
      }
    }
  }

  private onClose(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.closed) return;
    this.closed = true;
    const ctx = { ...this.context(), exitCode: code, signal };
    const err = this.killed
      ? new LoadError('killed', 'load run was killed', ctx)
      : this.fatal !== null
        ? new LoadError('runner-failed', `load runner failed: ${this.fatal}`, ctx)
        : new LoadError('runner-failed', `load runner exited unexpectedly (code ${code}, signal ${signal})`, ctx);
    this.settleReady?.(err);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.markExited();
  }

  private context(): LoadErrorContext {
    return {
      outputTail: this.outputTail,
      runnerPath: this.runnerPath,
      exitCode: this.child.exitCode,
      signal: this.child.signalCode,
    };
  }
}
