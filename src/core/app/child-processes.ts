// The app's own Node child processes (node:cluster workers, child_process.fork, any `node` it
// spawns with its environment): each opens its inspector on 127.0.0.1 at a port the OS picks and
// tells Hotline where, through a file in a private folder, so the run can profile it too.
//
// How: the launched app gets `NODE_OPTIONS=--require <preload>`, which every Node process started
// with that environment runs before its first line. In the process Hotline launched (its inspector
// is already open: --inspect-brk) the preload only drops the inspector flags from
// `process.execArgv`, which fork() and cluster pass on to children: inherited, they would make each
// child wait for a debugger at a port chosen by cluster (the primary's port + 1, + 2, …: it may
// clash) and print its address where Hotline may not see it (a silent fork). In a child, the
// preload opens the inspector itself, without waiting (a child Hotline never reaches still runs),
// and writes `<pid>.json` with its address.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { descendantsOf } from './processes.ts';
import { inAppStatement, type PreloadEnv } from '../in-app/index.ts';
import type { ListenAddress } from '../common/index.ts';

/** What a child process wrote about itself. */
export interface ChildInspector {
  pid: number;
  ppid: number;
  /** cluster: a node:cluster worker; fork: started with an IPC channel; spawn: any other node process. */
  kind: 'cluster' | 'fork' | 'spawn';
  /** ws://127.0.0.1:PORT/… */
  url: string;
  /** Its script and arguments (process.argv without the node binary). */
  argv: string[];
  /** Under a start command: the TCP servers it opened (it opened its inspector on the first). */
  listening?: ListenAddress[];
}

const DIR_ENV = 'HOTLINE_PROCESS_DIR';
/** Set for a start command (command.ts): processes wait until they listen before opening an inspector. */
const COMMAND_ENV = 'HOTLINE_COMMAND';
/** Set by the app's process once it listens: the processes it starts after that are its children. */
const APP_ENV = 'HOTLINE_APP_PID';
const PRELOAD_FILE = 'hotline-child-preload.cjs';

/**
 * Plain CommonJS: it runs in the user's processes, whatever their module system. Its code:
 * in-app/scripts/child-preload.ts.
 */
function preloadText(): string {
  const env: PreloadEnv = { dir: DIR_ENV, command: COMMAND_ENV, app: APP_ENV };
  return `'use strict';\n// Hotline: profiles the child processes of the app it started (see child-processes.ts in Hotline).\n${inAppStatement('child-preload', 'run', env)}`;
}

/**
 * The private folder of one launched app's children: the preload, and one file per child that
 * opened its inspector. Only this user can read it (the addresses give code execution in the app).
 */
export class ChildInspectors {
  private timer: NodeJS.Timeout | undefined;
  private readonly seen = new Set<string>();

  private constructor(readonly dir: string) {}

  static create(): ChildInspectors {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-processes-'));
    fs.chmodSync(dir, 0o700);
    fs.writeFileSync(path.join(dir, PRELOAD_FILE), preloadText(), { mode: 0o600 });
    return new ChildInspectors(dir);
  }

  /**
   * The app's environment additions: its own NODE_OPTIONS (`base`) with the preload after them.
   * `command`: the app is started by a command line whose Node processes open their inspector
   * only once they listen (see the preload).
   */
  env(base: string | undefined, o: { command?: boolean } = {}): Record<string, string> {
    const preload = JSON.stringify(path.join(this.dir, PRELOAD_FILE)); // NODE_OPTIONS reads "…" with \\ escapes
    return {
      [DIR_ENV]: this.dir,
      NODE_OPTIONS: `${base ?? ''} --require ${preload}`.trim(),
      ...(o.command ? { [COMMAND_ENV]: '1' } : {}),
    };
  }

  /** Calls `onChild` once for each child that reports, now and every `intervalMs` until dispose(). */
  watch(onChild: (c: ChildInspector) => void, intervalMs = 100): void {
    const scan = (): void => {
      for (const c of this.newReports()) onChild(c);
    };
    scan();
    this.timer = setInterval(scan, intervalMs);
    this.timer.unref();
  }

  /** Reports not seen before (a file being written is skipped until renamed into place). */
  newReports(): ChildInspector[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return []; // disposed
    }
    const out: ChildInspector[] = [];
    for (const name of names) {
      if (!/^\d+\.json$/.test(name) || this.seen.has(name)) continue;
      this.seen.add(name);
      const report = parseReport(readOrEmpty(path.join(this.dir, name)));
      if (report) out.push(report);
    }
    return out;
  }

  dispose(): void {
    clearInterval(this.timer);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** A report as the preload writes it; undefined for anything else (only loopback addresses pass). */
export function parseReport(text: string): ChildInspector | undefined {
  let v: Partial<ChildInspector>;
  try {
    v = JSON.parse(text) as Partial<ChildInspector>;
  } catch {
    return undefined;
  }
  if (typeof v?.pid !== 'number' || typeof v.ppid !== 'number' || typeof v.url !== 'string') return undefined;
  if (!/^ws:\/\/127\.0\.0\.1:\d+\//.test(v.url)) return undefined;
  const kind = v.kind === 'cluster' || v.kind === 'fork' ? v.kind : 'spawn';
  const argv = Array.isArray(v.argv) ? v.argv.filter((a): a is string => typeof a === 'string') : [];
  const listening = Array.isArray(v.listening) ? v.listening.filter(isAddress) : undefined;
  return { pid: v.pid, ppid: v.ppid, kind, url: v.url, argv, ...(listening?.length ? { listening } : {}) };
}

function isAddress(a: unknown): a is ListenAddress {
  const v = a as Partial<ListenAddress> | null;
  return typeof v?.port === 'number' && typeof v.address === 'string' && typeof v.family === 'string';
}

/**
 * The Node processes under `pid` (for an app attached to, whose children Hotline cannot reach):
 * Linux only, by the executable's name; elsewhere none are known.
 */
export function nodeChildrenOf(pid: number): number[] {
  if (process.platform !== 'linux') return [];
  return descendantsOf(pid).filter((child) => {
    try {
      return /^node(js)?$/.test(path.basename(fs.readlinkSync(`/proc/${child}/exe`)));
    } catch {
      return false; // gone, or not ours to look at
    }
  });
}
