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
import { BOOT_ENDS, RECORD_CONSOLE, TRACK_BOOT_THREADS } from '../inspector/index.ts';
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

/** Plain CommonJS: it runs in the user's processes, whatever their module system. */
const PRELOAD = `'use strict';
// Hotline: profiles the child processes of the app it started (see child-processes.ts in Hotline).
(() => {
  const dir = process.env.${DIR_ENV};
  // Worker threads run preloads too: they are profiled through their process's own inspector.
  if (!dir || !require('node:worker_threads').isMainThread) return;
  const inspector = require('node:inspector');
  const inspectorFlag = /^--(inspect|inspect-brk|inspect-port|debug-port|inspect-wait|inspect-publish-uid)(=|$)/;
  if (inspector.url()) {
    // The process Hotline started: its children must not inherit its inspector flags.
    for (let i = process.execArgv.length - 1; i >= 0; i--) if (inspectorFlag.test(process.execArgv[i])) process.execArgv.splice(i, 1);
    return;
  }
  // The console's own methods, before the app's code: its profiled windows swap only these.
  ${RECORD_CONSOLE}
  const report = (listening) => {
    try {
      inspector.open(0, '127.0.0.1', false);
    } catch {
      return; // the inspector is unavailable here: this process runs unprofiled
    }
    const url = inspector.url();
    if (!url) return;
    const fs = require('node:fs');
    const path = require('node:path');
    const kind = typeof process.send !== 'function' ? 'spawn' : require('node:cluster').isWorker ? 'cluster' : 'fork';
    const file = path.join(dir, process.pid + '.json');
    try {
      fs.writeFileSync(file + '.tmp', JSON.stringify({ pid: process.pid, ppid: process.ppid, kind, url, argv: process.argv.slice(1), listening }), { mode: 0o600 });
      fs.renameSync(file + '.tmp', file);
    } catch {
      inspector.close(); // Hotline has gone (its folder with it): nobody will attach
    }
  };
  // A start command (npm, a watcher, a framework CLI) runs Node processes that are not the app:
  // until one of them serves a TCP port, none opens an inspector (nothing slows them, nothing is
  // left open). The first to listen is the app; what it starts from then on is its children.
  if (process.env.${COMMAND_ENV} === '1' && !process.env.${APP_ENV}) {
    // The worker threads it makes until it listens are its boot's (boot-threads.ts in Hotline).
    ${TRACK_BOOT_THREADS}
    const net = require('node:net');
    const listen = net.Server.prototype.listen;
    let servers;
    net.Server.prototype.listen = function (...args) {
      this.once('listening', () => {
        const a = this.address();
        if (!a || typeof a !== 'object') return; // a pipe or a unix socket: no HTTP to load
        if (servers) return void servers.push(a);
        ${BOOT_ENDS}
        servers = [a];
        process.env.${APP_ENV} = String(process.pid);
        // Servers opened in the same turn are reported together (the one on PORT is chosen).
        setImmediate(() => report(servers));
      });
      return listen.apply(this, args);
    };
    return;
  }
  report(undefined);
})();
`;

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
    fs.writeFileSync(path.join(dir, PRELOAD_FILE), PRELOAD, { mode: 0o600 });
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
