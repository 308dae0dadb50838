// Attaching to an app that already runs: find its inspector (a ws:// URL, an inspector port, or a
// pid that gets SIGUSR1 to open one), learn where it serves HTTP, and at the end leave it running
// as it was: what the run installed is removed and the inspector is let go (closed again when
// Hotline opened it). Whoever reaches an inspector can run any code in the app, so only loopback
// inspectors are used unless the user opted in.
import { InspectorSession } from '../inspector/index.ts';
import { isLoopback, type ListenAddress, RunError } from '../common/index.ts';
import type { ExitInfo, RunApp } from './launch.ts';
import { accepts, loopbackHostOf } from './ports.ts';
import { isAlive } from './processes.ts';
import { cwdOf, isNodeProcess, listeningSockets } from './proc-net.ts';

export interface AttachSpec {
  /** `ws://127.0.0.1:9229/<id>`, an inspector port (`9229`, `127.0.0.1:9229`, `port:9229`), or a pid (`1234`, `pid:1234`). */
  target: string;
  /** Allow an inspector on another host (it gives code execution to whoever reaches it). */
  allowRemote?: boolean;
  /** How long the app may take to open its inspector after SIGUSR1; default 10 s. */
  inspectorTimeoutS?: number;
}

export type AttachTarget =
  | { kind: 'ws'; url: string; host: string }
  | { kind: 'port'; host: string; port: number }
  | { kind: 'pid'; pid: number }
  /** A bare number: a port if an inspector answers there, else a pid. */
  | { kind: 'number'; value: number };

/** Parses --attach / the picker's input; throws RunError('bad-options') with what to type. */
export function parseAttachTarget(text: string): AttachTarget {
  const t = text.trim();
  const bad = (): RunError =>
    new RunError(
      'bad-options',
      `--attach takes an inspector URL (ws://127.0.0.1:9229/…), an inspector port (9229 or 127.0.0.1:9229) or a process id (pid:1234); got "${t}".`,
    );
  if (/^wss?:\/\//i.test(t)) {
    let url: URL;
    try {
      url = new URL(t);
    } catch {
      throw bad();
    }
    return { kind: 'ws', url: t, host: url.hostname };
  }
  let m = /^pid:(\d+)$/i.exec(t);
  if (m) return { kind: 'pid', pid: Number(m[1]) };
  m = /^port:(\d+)$/i.exec(t);
  if (m) return portTarget('127.0.0.1', m[1], bad);
  m = /^(?:https?:\/\/)?(\[[0-9a-f:]+\]|[a-z0-9.-]+):(\d+)\/?$/i.exec(t);
  if (m) return portTarget(m[1].replace(/^\[|\]$/g, ''), m[2], bad);
  if (/^\d+$/.test(t) && Number(t) > 0) return { kind: 'number', value: Number(t) };
  throw bad();
}

function portTarget(host: string, port: string, bad: () => RunError): AttachTarget {
  const n = Number(port);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw bad();
  return { kind: 'port', host, port: n };
}

/** The host of an inspector the target names, when it is not this machine (undefined: local or a pid). */
export function remoteHostOf(target: AttachTarget): string | undefined {
  if (target.kind === 'ws' || target.kind === 'port') return isLoopback(target.host) ? undefined : target.host;
  return undefined;
}

export const REMOTE_ATTACH_WARNING =
  'the inspector gives whoever reaches it full code execution in the app; attach to one on another host only over a network you trust (an SSH tunnel to 127.0.0.1 is safer).';

interface FoundInspector {
  wsUrl: string;
  /** Hotline opened it with SIGUSR1, so it closes it again at the end. */
  openedByUs: boolean;
}

/** The ws:// URL of the one Node target on host:port, or undefined if no inspector answers there. */
export async function inspectorAt(host: string, port: number): Promise<string | undefined> {
  const h = host.includes(':') ? `[${host}]` : host;
  try {
    const res = await fetch(`http://${h}:${port}/json/list`, { signal: AbortSignal.timeout(1500) });
    if (!res.ok) return undefined;
    const list = (await res.json()) as Array<{ webSocketDebuggerUrl?: unknown }>;
    const url = Array.isArray(list)
      ? list.find((t) => typeof t?.webSocketDebuggerUrl === 'string')?.webSocketDebuggerUrl
      : undefined;
    return typeof url === 'string' ? url : undefined;
  } catch {
    return undefined; // not an inspector (or nothing) on that port
  }
}

/** The inspector `pid` already has open, among the ports it listens on. */
async function openInspectorOf(pid: number, skip: Set<number> = new Set()): Promise<string | undefined> {
  for (const s of listeningSockets(pid) ?? []) {
    if (skip.has(s.port)) continue;
    const host = loopbackHostOf(s);
    if (host === undefined) continue;
    const url = await inspectorAt(host, s.port);
    if (url) return url;
  }
  return undefined;
}

/** Finds (or, for a pid, opens) the inspector the target names. */
export async function findInspector(spec: AttachSpec, signal?: AbortSignal): Promise<FoundInspector> {
  const target = parseAttachTarget(spec.target);
  const remote = remoteHostOf(target);
  if (remote !== undefined && spec.allowRemote !== true) {
    throw new RunError(
      'bad-options',
      `Refusing to attach to an inspector on ${remote}: only this machine's (127.0.0.1, ::1) are used, because ${REMOTE_ATTACH_WARNING} To allow it anyway: --allow-remote-attach (hotline.allowRemoteAttach).`,
    );
  }
  switch (target.kind) {
    case 'ws':
      return { wsUrl: target.url, openedByUs: false };
    case 'port': {
      const wsUrl = await inspectorAt(target.host, target.port);
      if (!wsUrl)
        throw new RunError(
          'inspector',
          `No Node inspector answers on ${target.host}:${target.port} (http://${target.host}:${target.port}/json/list). Start the app with --inspect, or attach by process id.`,
        );
      return { wsUrl, openedByUs: false };
    }
    case 'number': {
      const wsUrl = target.value <= 65535 ? await inspectorAt('127.0.0.1', target.value) : undefined;
      if (wsUrl) return { wsUrl, openedByUs: false };
      if (!isAlive(target.value))
        throw new RunError(
          'bad-options',
          `--attach ${target.value}: no inspector answers on port ${target.value} and no process has that id.`,
        );
      return openByPid(target.value, spec, signal);
    }
    case 'pid':
      if (!isAlive(target.pid)) throw new RunError('bad-options', `No process with id ${target.pid} is running.`);
      return openByPid(target.pid, spec, signal);
    default: {
      const never: never = target;
      return never;
    }
  }
}

/**
 * A process's inspector: the one it has open, else SIGUSR1 makes Node open one (on 9229, or on its
 * --inspect-port) and the new port is found among the sockets it listens on, whatever it is.
 */
async function openByPid(pid: number, spec: AttachSpec, signal?: AbortSignal): Promise<FoundInspector> {
  const before = listeningSockets(pid);
  if (before === undefined)
    throw new RunError(
      'bad-options',
      `Cannot read /proc/${pid}: attaching by process id needs Linux and a process of your own user.`,
    );
  const open = await openInspectorOf(pid);
  if (open) return { wsUrl: open, openedByUs: false };
  if (!isNodeProcess(pid))
    throw new RunError(
      'bad-options',
      `Process ${pid} is not a Node.js process: Hotline can only attach to node (a SIGUSR1 would end most other programs).`,
    );
  try {
    process.kill(pid, 'SIGUSR1');
  } catch (err) {
    throw new RunError(
      'bad-options',
      `Cannot signal process ${pid} (${(err as NodeJS.ErrnoException).code}): it must belong to your user.`,
    );
  }
  const timeoutMs = (spec.inspectorTimeoutS ?? 10) * 1000;
  const known = new Set(before.map((s) => s.port));
  const deadline = Date.now() + timeoutMs;
  // Node gives no signal back but its own stderr, which is not ours to read: look every 100 ms.
  while (Date.now() < deadline) {
    if (signal?.aborted) throw new RunError('cancelled', 'Cancelled while the app opened its inspector.');
    if (!isAlive(pid))
      throw new RunError(
        'app-exited',
        `Process ${pid} ended after SIGUSR1 (a Node.js process that ignores the inspector signal, or one started with --disable-sigusr1?).`,
      );
    const url = await openInspectorOf(pid, known);
    if (url) return { wsUrl: url, openedByUs: true };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new RunError(
    'inspector',
    `Process ${pid} did not open its inspector within ${timeoutMs / 1000} s of SIGUSR1. Its port (9229 unless it was started with --inspect-port) may be taken by another process: start the app with --inspect-port=0, or with --inspect=127.0.0.1:0 and attach by URL.`,
  );
}

/** An app Hotline attached to: the run profiles it like a launched one but never stops it. */
export class AttachedApp implements RunApp {
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;
  private letGo = false;
  private released: Promise<string[]> | undefined;

  private constructor(
    readonly inspector: InspectorSession,
    readonly pid: number,
    readonly command: string[],
    private readonly inspectorPort: number,
    /** The pid and /proc describe a process of this machine (not one behind a remote inspector). */
    private readonly local: boolean,
    private readonly openedByUs: boolean,
  ) {
    this.exited = inspector.closed.then(async () => {
      if (this.letGo)
        return (this.exitInfo = { code: null, signal: null, reason: 'let go by Hotline; the app still runs' });
      // Node keeps a dying app alive until the session lets go: give it a moment to be gone.
      const until = Date.now() + 2000;
      while (local && isAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      this.exitInfo = {
        code: null,
        signal: null,
        reason: local && isAlive(pid) ? 'the inspector connection was closed; the app still runs' : 'it ended',
      };
      return this.exitInfo;
    });
  }

  static async attach(spec: AttachSpec, signal?: AbortSignal): Promise<AttachedApp> {
    const found = await findInspector(spec, signal);
    const url = new URL(found.wsUrl);
    let inspector: InspectorSession;
    try {
      inspector = await InspectorSession.connect(found.wsUrl, { allowRemote: spec.allowRemote });
    } catch (err) {
      const left = found.openedByUs
        ? ` The app's inspector, opened by SIGUSR1, stays open on ${url.host} (restart the app to close it).`
        : '';
      throw new RunError(
        'inspector',
        `Could not connect to the inspector at ${url.host}: ${(err as Error).message}.${left}`,
      );
    }
    try {
      const info = await inspector.appProcess();
      const local = isLoopback(url.hostname) && cwdOf(info.pid) === info.cwd;
      return new AttachedApp(
        inspector,
        info.pid,
        [info.argv[0], ...info.execArgv, ...info.argv.slice(1)],
        Number(url.port),
        local,
        found.openedByUs,
      );
    } catch (err) {
      await inspector.close();
      throw err;
    }
  }

  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  /** Its output goes wherever the app's owner sends it: the run cannot see it. */
  output(): string {
    return '';
  }

  printed(): string {
    return '';
  }

  /**
   * Where to send the load: a full URL as given (it must answer); for a path, the one port the
   * app listens on besides its inspector (from /proc, or from the app's own handles).
   */
  async httpAddress(url: string): Promise<ListenAddress> {
    if (/^https?:\/\//.test(url)) {
      const u = new URL(url);
      const host = u.hostname.replace(/^\[|\]$/g, '');
      const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
      const address = {
        address: host === 'localhost' ? '127.0.0.1' : host,
        family: host.includes(':') ? 'IPv6' : 'IPv4',
        port,
      };
      if (!(await accepts(port, address.address)))
        throw new RunError('never-listened', `Nothing accepts connections on ${u.host}: is the --url right?`);
      return address;
    }
    if (!this.local)
      throw new RunError(
        'bad-options',
        `The app's inspector is not on this machine, so its HTTP port cannot be looked up: pass a full --url (http://127.0.0.1:PORT${url}).`,
      );
    const servers = (listeningSockets(this.pid) ?? (await this.inspector.listeningServers())).filter(
      (s) => s.port !== this.inspectorPort,
    );
    if (servers.length === 0)
      throw new RunError(
        'never-listened',
        `The app (process ${this.pid}) listens on no TCP port besides its inspector: is it an HTTP server? Pass a full --url if it serves elsewhere.`,
      );
    if (servers.length > 1) {
      const ports = servers
        .map((s) => s.port)
        .sort((a, b) => a - b)
        .join(', ');
      throw new RunError(
        'bad-options',
        `The app (process ${this.pid}) listens on ports ${ports}: say which to load with a full --url (http://127.0.0.1:PORT${url}).`,
      );
    }
    const [server] = servers;
    const host = loopbackHostOf(server);
    if (host === undefined)
      throw new RunError(
        'never-listened',
        `The app listens on ${server.address}:${server.port} only, not on a loopback address: Hotline loads only 127.0.0.1 or ::1.`,
      );
    if (!(await accepts(server.port, host)))
      throw new RunError(
        'never-listened',
        `The app listens on port ${server.port} but refuses connections on ${host}.`,
      );
    return server;
  }

  /**
   * Lets the app go, never stopping it: removes what the run installed (loop probe, profiler,
   * coverage), closes the inspector port if Hotline opened it, and disconnects. Bounded in time:
   * an app stuck in a loop cannot answer, and the session is closed anyway (V8 then stops the
   * profiler by itself). Resolves with the steps that could not be undone.
   */
  stop(): Promise<void> {
    this.released ??= this.release();
    return this.released.then(() => undefined);
  }

  private async release(): Promise<string[]> {
    this.letGo = true;
    if (this.inspector.isClosed) return [];
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<string[]>((resolve) => {
      timer = setTimeout(resolve, 5000, ['the app did not answer within 5 s']);
    });
    const undo = (async (): Promise<string[]> => {
      const failed = await this.inspector.restore();
      if (this.openedByUs)
        await this.inspector
          .closeInspectorAfterDetach()
          .catch((err: Error) => failed.push(`closing the inspector: ${err.message}`));
      return failed;
    })();
    let failed: string[];
    try {
      failed = await Promise.race([undo, timedOut]);
    } finally {
      clearTimeout(timer);
      await this.inspector.close();
    }
    if (this.openedByUs && this.local && !(await this.inspectorPortClosed()))
      failed.push(`the inspector port ${this.inspectorPort} is still open`);
    return failed;
  }

  /** The port Hotline opened is gone once the app ran inspector.close() after the session left. */
  private async inspectorPortClosed(): Promise<boolean> {
    const until = Date.now() + 3000;
    for (;;) {
      const open = listeningSockets(this.pid);
      if (open === undefined || !open.some((s) => s.port === this.inspectorPort)) return true;
      if (Date.now() > until) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Set once the run let the app go: a closed session is then no exit. */
  get detached(): boolean {
    return this.letGo;
  }
}
