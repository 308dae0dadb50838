// The load runner: a child process forked by `LoadRun` (load-run.ts), bundled to dist/load-runner.js.
// It runs ONE continuous autocannon instance and keeps its own figures per phase, so a phase
// switch is a swap of counters and never reconnects or pauses the load. Messages: see
// runner-protocol.ts. It never writes to stdout; diagnostics go to stderr (the parent keeps a tail).
//
// What autocannon's events are, read from autocannon@9 lib/run.js and lib/httpClient.js:
// - We listen on each Client (through `setupClient`) rather than on the instance, because the
//   instance reports a timeout only as a `reqError` ("request timed out"), emitted `pipelining`
//   times per client `timeout` event, which itself fires `pipelining` times per expiry:
//   pipelining² events per expiry. The client events are one per request:
//     'response' (statusCode, bytes, ms)  a completed response, ms from hrtime, any status;
//     'timeout'  ()                       one request given up on (connection then reopened);
//     'connError' (err)                   one socket error (connection then reopened at once:
//                                         with nothing listening this loops as fast as it can).
// - autocannon's own latency histogram leaves timeouts out; we keep them (see PhaseStats).
// - instance.stop() only takes effect at autocannon's next 1 s sample, so we also destroy the
//   clients ourselves; and a Client reconnect keeps stale in-flight requests (repairReconnect).

import autocannon from 'autocannon';
import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import type { EventEmitter } from 'node:events';
import {
  parseParentMessage,
  type LatencySummary,
  type LoadPhase,
  type LoadTick,
  type ParentMessage,
  type PhaseResult,
  type RunnerMessage,
  type RunnerOptions,
} from './runner-protocol.ts';

// autocannon arms setTimeout(duration * 1000) to stop; Node clamps delays past 2^31-1 ms (24.8
// days) to 1 ms, which would stop the load at once. 20 days is "until told" for us.
const UNTIL_TOLD_S = 20 * 24 * 3600;

/**
 * Latencies in µs in an HDR histogram, as autocannon keeps them: 3 significant digits (a
 * percentile is within 0.1% of the exact one), constant memory however long the window runs.
 */
export function latencyHistogram(): Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3 });
}

const US_PER_MS = 1000;
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Mean, percentiles and max of the latencies in `histogram` (µs) plus `extra` requests at
 * `extraValueMs` (the timed-out ones); `sumMs` is the exact sum of the recorded latencies.
 */
export function summarize(histogram: Histogram, sumMs: number, extra = 0, extraValueMs = 0): LatencySummary {
  const n = histogram.totalCount + extra;
  if (n === 0) return { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  let all = histogram;
  if (extra > 0) {
    all = latencyHistogram();
    all.add(histogram);
    all.recordValueWithCount(Math.round(extraValueMs * US_PER_MS), extra);
  }
  const ms = (us: number): number => round3(us / US_PER_MS);
  // A percentile is the top of its bucket: never above the largest value recorded.
  const at = (p: number): number => ms(Math.min(all.getValueAtPercentile(p), all.maxValue));
  return {
    mean: round3((sumMs + extra * extraValueMs) / n),
    p50: at(50),
    p90: at(90),
    p99: at(99),
    max: ms(all.maxValue),
  };
}

/** Everything counted during one phase, plus the counters of its current second. */
class PhaseStats {
  /** Time and CPU of the sub-windows already ended (a phase kind entered several times). */
  private pastNs = 0n;
  private pastCpuUs = 0;
  private startNs: bigint | undefined = process.hrtime.bigint();
  private cpuStart = process.cpuUsage();
  private readonly latencies = latencyHistogram();
  private latencySum = 0;
  private responses = 0;
  private bytes = 0;
  private socketErrors = 0;
  private timeouts = 0;
  private non2xx = 0;
  private readonly statusCodes: Record<string, number> = {};
  private second = 0;
  private secRequests = 0;
  private secErrors = 0;
  private secNon2xx = 0;

  constructor(readonly phase: LoadPhase) {}

  onResponse(statusCode: number, bytes: number, ms: number): void {
    this.responses++;
    this.secRequests++;
    this.bytes += bytes;
    this.latencies.recordValue(Math.round(ms * US_PER_MS));
    this.latencySum += ms;
    const key = String(statusCode);
    this.statusCodes[key] = (this.statusCodes[key] ?? 0) + 1;
    if (statusCode < 200 || statusCode > 299) {
      this.non2xx++;
      this.secNon2xx++;
    }
  }
  onTimeout(): void {
    this.timeouts++;
    this.secErrors++;
  }
  onSocketError(): void {
    this.socketErrors++;
    this.secErrors++;
  }

  takeTick(): LoadTick {
    const tick: LoadTick = {
      phase: this.phase,
      second: ++this.second,
      requests: this.secRequests,
      errors: this.secErrors,
      non2xx: this.secNon2xx,
    };
    this.secRequests = this.secErrors = this.secNon2xx = 0;
    return tick;
  }

  /** The phase kind is left (its totals stop counting time) … */
  pause(): void {
    if (this.startNs === undefined) return;
    this.pastNs += process.hrtime.bigint() - this.startNs;
    const cpu = process.cpuUsage(this.cpuStart);
    this.pastCpuUs += cpu.user + cpu.system;
    this.startNs = undefined;
  }

  /** … and entered again. */
  resume(): void {
    if (this.startNs !== undefined) return;
    this.startNs = process.hrtime.bigint();
    this.cpuStart = process.cpuUsage();
  }

  result(timeoutMs: number): PhaseResult {
    const running = this.startNs !== undefined;
    const cpuNow = running ? process.cpuUsage(this.cpuStart) : { user: 0, system: 0 };
    const durationS = Number(this.pastNs + (running ? process.hrtime.bigint() - this.startNs! : 0n)) / 1e9;
    const cpu = { user: this.pastCpuUs + cpuNow.user, system: cpuNow.system };
    const perS = (x: number): number => (durationS > 0 ? round3(x / durationS) : 0);
    return {
      phase: this.phase,
      durationS: round3(durationS),
      requests: { total: this.responses, perSecond: perS(this.responses) },
      latencyMs: summarize(this.latencies, this.latencySum, this.timeouts, timeoutMs),
      completedLatencyMs: summarize(this.latencies, this.latencySum),
      errors: this.socketErrors + this.timeouts,
      timeouts: this.timeouts,
      non2xx: this.non2xx,
      statusCodes: { ...this.statusCodes },
      bytesPerSecond: perS(this.bytes),
      loadCpu: perS((cpu.user + cpu.system) / 1e6),
    };
  }
}

/** The slice of autocannon's Client we use (its typings omit `destroy` and the error events). */
type AutocannonClient = EventEmitter & { destroy(): void };

class Runner {
  private instance: autocannon.Instance | null = null;
  private readonly clients: AutocannonClient[] = [];
  private stats: PhaseStats | null = null;
  /** Per phase kind, every sub-window of it so far. */
  private readonly totals = new Map<LoadPhase, PhaseStats>();
  private tickTimer: NodeJS.Timeout | null = null;
  private timeoutMs = 0;
  private done = false;

  handle(msg: ParentMessage): void {
    if (this.done) return;
    switch (msg.type) {
      case 'start':
        this.start(msg.options);
        return;
      case 'switch': {
        const ended = this.endPhase();
        if (!ended) return;
        this.beginPhase(msg.next);
        send({ type: 'phase-result', seq: msg.seq, ...ended });
        return;
      }
      case 'finish': {
        const ended = this.endPhase();
        if (!ended) return;
        this.done = true;
        this.stopLoad();
        send({ type: 'phase-result', seq: msg.seq, ...ended }, () => process.exit(0));
        return;
      }
      default: {
        const never: never = msg;
        return never;
      }
    }
  }

  /** Stops sending at once: autocannon's own stop() only takes effect at its next 1 s sample. */
  stopLoad(): void {
    if (this.tickTimer) clearInterval(this.tickTimer);
    this.tickTimer = null;
    this.instance?.stop();
    for (const c of this.clients) c.destroy();
  }

  fatal(message: string): void {
    if (this.done) process.exit(1); // already stopping (or finished): just go
    this.done = true;
    this.stopLoad();
    process.stderr.write(`hotline load runner: ${message}\n`);
    send({ type: 'fatal', message }, () => process.exit(1));
  }

  private start(o: RunnerOptions): void {
    if (this.instance) {
      process.stderr.write('hotline load runner: ignoring a second start message\n');
      return;
    }
    this.timeoutMs = o.timeoutS * 1000;
    this.beginPhase('warmup');
    const opts: autocannon.Options = {
      url: o.url,
      method: o.method as autocannon.Options['method'],
      headers: o.headers,
      body: o.body,
      connections: o.connections,
      pipelining: o.pipelining,
      timeout: o.timeoutS,
      duration: Math.min(o.maxDurationS ?? UNTIL_TOLD_S, UNTIL_TOLD_S),
      setupClient: (client) => this.attach(client as unknown as AutocannonClient),
    };
    try {
      this.instance = autocannon(opts, (err: unknown) => {
        // Called once the instance has fully stopped: after our stop(), or on its own.
        if (err) this.fatal(`autocannon failed: ${errorText(err)}`);
        else if (!this.done) this.fatal('autocannon stopped on its own before it was told to');
      });
    } catch (err) {
      // The Client constructor throws synchronously, e.g. on an HTTP method it does not know.
      this.fatal(`autocannon could not start: ${errorText(err)}`);
      return;
    }
    this.instance.on('start', () => {
      if (!this.done) send({ type: 'started', phase: 'warmup' });
    });
  }

  private attach(client: AutocannonClient): void {
    this.clients.push(client);
    repairReconnect(client);
    client.on('response', (statusCode: number, bytes: number, ms: number) => {
      this.stats?.onResponse(statusCode, bytes, ms);
      this.total()?.onResponse(statusCode, bytes, ms);
    });
    client.on('timeout', () => {
      this.stats?.onTimeout();
      this.total()?.onTimeout();
    });
    client.on('connError', () => {
      this.stats?.onSocketError();
      this.total()?.onSocketError();
    });
  }

  private total(): PhaseStats | undefined {
    return this.stats ? this.totals.get(this.stats.phase) : undefined;
  }

  private beginPhase(phase: LoadPhase): void {
    const stats = new PhaseStats(phase);
    this.stats = stats;
    const total = this.totals.get(phase);
    if (total) total.resume();
    else this.totals.set(phase, new PhaseStats(phase));
    if (this.tickTimer) clearInterval(this.tickTimer);
    this.tickTimer = setInterval(() => send({ type: 'tick', tick: stats.takeTick() }), 1000);
  }

  /** The sub-window that ends, and its phase kind's total so far. */
  private endPhase(): { result: PhaseResult; total: PhaseResult } | null {
    if (!this.stats) {
      this.fatal('phase change before the load started');
      return null;
    }
    const total = this.total()!;
    total.pause();
    return { result: this.stats.result(this.timeoutMs), total: total.result(this.timeoutMs) };
  }
}

/**
 * autocannon@9's Client reconnects (after a socket error, or when the server ends the
 * connection, e.g. `Connection: close`) without emptying its queue of in-flight requests, so
 * every later response is timed from the start of a request lost with the old connection:
 * measured latencies then grow without bound (~500 ms for a trivial handler answering
 * `Connection: close` after 2 s), and the queue grows by one per refused connection. Requests
 * lost with a dead connection never get an answer, so we drop them before each (re)connect.
 * Guarded: if the internals are not there (another autocannon version) we leave it be.
 */
function repairReconnect(client: AutocannonClient): void {
  const c = client as AutocannonClient & { _connect?: unknown; pipelinedRequests?: { clear?: unknown } };
  const connect = c._connect;
  const queue = c.pipelinedRequests;
  if (typeof connect !== 'function' || typeof queue?.clear !== 'function') {
    if (!warnedInternals)
      process.stderr.write('hotline load runner: autocannon internals changed; reconnect latency repair is off\n');
    warnedInternals = true;
    return;
  }
  c._connect = function reconnectWithEmptyQueue(this: unknown): unknown {
    (queue.clear as () => void).call(queue);
    return (connect as () => unknown).call(c);
  };
}
let warnedInternals = false;

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function send(msg: RunnerMessage, then?: () => void): void {
  if (!process.send || !process.connected) {
    // The parent is gone: the 'disconnect' handler exits; nothing to tell anyone.
    then?.();
    return;
  }
  process.send(msg, undefined, undefined, (err: Error | null) => {
    if (err) process.stderr.write(`hotline load runner: IPC send failed: ${err.message}\n`);
    then?.();
  });
}

function main(): void {
  if (!process.send) {
    process.stderr.write('hotline load runner: must be started by LoadRun (child_process.fork)\n');
    process.exit(2);
  }
  const runner = new Runner();
  process.on('message', (raw: unknown) => {
    const msg = parseParentMessage(raw);
    if (msg) runner.handle(msg);
    else process.stderr.write(`hotline load runner: ignoring unknown message ${JSON.stringify(raw)}\n`);
  });
  // The parent closed the channel or died: no orphan load generator, ever.
  process.on('disconnect', () => {
    runner.stopLoad();
    process.exit(0);
  });
  process.on('uncaughtException', (err) => {
    process.stderr.write(`hotline load runner: ${err.stack ?? err.message}\n`);
    runner.fatal(`uncaught: ${err.message}`);
  });
}

// Only when run as the forked bundle: tests import this file for `summarize`.
if (require.main === module) main();
