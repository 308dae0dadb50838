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
import type { EventEmitter } from 'node:events';
import {
  parseParentMessage,
  type LoadPhase,
  type LoadTick,
  type ParentMessage,
  type PhaseResult,
  type RunnerMessage,
  type RunnerOptions,
} from './runner-protocol.ts';
import { latencyHistogram, round3, summarize, US_PER_MS } from './latency.ts';
import type { MixRequest } from './mix-types.ts';
import { interleave } from './request-mix.ts';
import { RouteCounters, type RouteId, routesOfMix } from './route-stats.ts';

export { latencyHistogram, summarize } from './latency.ts';

// autocannon arms setTimeout(duration * 1000) to stop; Node clamps delays past 2^31-1 ms (24.8
// days) to 1 ms, which would stop the load at once. 20 days is "until told" for us.
const UNTIL_TOLD_S = 20 * 24 * 3600;

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
  /** With a request mix: each route's own counters. */
  private readonly routes: RouteCounters | undefined;

  constructor(
    readonly phase: LoadPhase,
    routes?: readonly RouteId[],
  ) {
    this.routes = routes ? new RouteCounters(routes) : undefined;
  }

  /** `route`: the mix's route this response answers (-1: no mix, or not known). */
  onResponse(statusCode: number, bytes: number, ms: number, route = -1): void {
    this.routes?.onResponse(route, statusCode, ms);
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
  onTimeout(route = -1): void {
    this.routes?.onTimeout(route);
    this.timeouts++;
    this.secErrors++;
  }
  onSocketError(route = -1): void {
    this.routes?.onSocketError(route);
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
      ...(this.routes ? { routes: this.routes.result(durationS, timeoutMs) } : {}),
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
  /** The mix's routes (none without a mix). */
  private routes: RouteId[] | undefined;
  /**
   * The route of the response being delivered: set by the answered request's own `onResponse`,
   * which autocannon calls for the request a response completes (its queue pairs them in order),
   * synchronously just before the client's 'response' event (lib/httpClient.js).
   */
  private answered = -1;

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
    const mix = o.requests ? this.mixRequests(o.requests) : undefined;
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
      ...(mix ? { requests: mix } : {}),
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

  /**
   * autocannon's `requests`, which each connection cycles through in order: the mix's requests
   * interleaved by weight (request-mix.ts), each tagged with its route.
   */
  private mixRequests(requests: MixRequest[]): autocannon.Request[] {
    const { routes, routeOfRequest } = routesOfMix(requests);
    this.routes = routes;
    return interleave(requests.map((r) => r.weight)).map((i) => {
      const r = requests[i];
      const route = routeOfRequest[i];
      const request = {
        method: r.method as autocannon.Request['method'],
        path: r.path,
        headers: r.headers,
        ...(r.body !== undefined ? { body: r.body } : {}),
        [ROUTE]: route,
        // Called with the response to THIS request, just before the client's 'response'.
        onResponse: () => {
          this.answered = route;
        },
      };
      return request as autocannon.Request;
    });
  }

  private attach(client: AutocannonClient): void {
    this.clients.push(client);
    repairReconnect(client);
    const lost = this.routes ? lostRequests(client) : undefined;
    client.on('response', (statusCode: number, bytes: number, ms: number) => {
      const route = this.answered;
      this.answered = -1;
      this.stats?.onResponse(statusCode, bytes, ms, route);
      this.total()?.onResponse(statusCode, bytes, ms, route);
    });
    client.on('timeout', () => {
      const route = lost?.timedOut() ?? -1;
      this.stats?.onTimeout(route);
      this.total()?.onTimeout(route);
    });
    client.on('connError', () => {
      const route = lost?.inFlight() ?? -1;
      this.stats?.onSocketError(route);
      this.total()?.onSocketError(route);
    });
  }

  private total(): PhaseStats | undefined {
    return this.stats ? this.totals.get(this.stats.phase) : undefined;
  }

  private beginPhase(phase: LoadPhase): void {
    const stats = new PhaseStats(phase, this.routes);
    this.stats = stats;
    const total = this.totals.get(phase);
    if (total) total.resume();
    else this.totals.set(phase, new PhaseStats(phase, this.routes));
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

/** The property that names a mix request's route on autocannon's copy of it. */
const ROUTE = 'hotlineRoute';

/**
 * Which mix route a timeout or a socket error belongs to. Neither event says which request it
 * ends, so we read autocannon@9's queue of in-flight requests (FIFO, the server answers in
 * order): a socket error is emitted while the failed request is still at its head; a timeout
 * only after the client cleared the queue and reconnected (handleTimeout), so each clear keeps
 * what it threw away, and each of the `pipelining` timeout events that follow takes the next.
 * Without those internals the route is unknown (-1): counted in the totals only.
 */
function lostRequests(client: AutocannonClient): { timedOut(): number; inFlight(): number } {
  type Pending = { req?: Record<string, unknown> };
  const queue = (client as AutocannonClient & { pipelinedRequests?: Record<string, unknown> }).pipelinedRequests;
  const toArray = queue?.toArray;
  const clear = queue?.clear;
  if (!queue || typeof toArray !== 'function' || typeof clear !== 'function')
    return { timedOut: () => -1, inFlight: () => -1 };
  const routeOfPending = (p: Pending): number => (typeof p.req?.[ROUTE] === 'number' ? p.req[ROUTE] : -1);
  const pending = (): Pending[] => (toArray as () => Pending[]).call(queue);
  let thrownAway: number[] = [];
  queue.clear = function clearKeepingRoutes(this: unknown): unknown {
    const was = pending();
    // A second clear right after the first (our reconnect repair) must not forget the first's.
    if (was.length > 0) thrownAway = was.map(routeOfPending);
    return (clear as () => unknown).call(queue);
  };
  return {
    timedOut: () => thrownAway.shift() ?? -1,
    inFlight: () => {
      const head = pending()[0];
      return head ? routeOfPending(head) : -1;
    },
  };
}

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
