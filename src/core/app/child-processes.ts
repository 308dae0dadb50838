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
import { RECORD_CONSOLE } from '../inspector/index.ts';

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
}

const DIR_ENV = 'HOTLINE_PROCESS_DIR';
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
  try {
    inspector.open(0, '127.0.0.1', false);
  } catch {
    return; // the inspector is unavailable here: this process runs unprofiled
  }
  const url = inspector.url();
  if (!url) return;
  // The console's own methods, before the app's code: its profiled windows swap only these.
  ${RECORD_CONSOLE}
  const fs = require('node:fs');
  const path = require('node:path');
  const kind = typeof process.send !== 'function' ? 'spawn' : require('node:cluster').isWorker ? 'cluster' : 'fork';
  const file = path.join(dir, process.pid + '.json');
  try {
    fs.writeFileSync(file + '.tmp', JSON.stringify({ pid: process.pid, ppid: process.ppid, kind, url, argv: process.argv.slice(1) }), { mode: 0o600 });
    fs.renameSync(file + '.tmp', file);
  } catch {
    inspector.close(); // Hotline has gone (its folder with it): nobody will attach
  }
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

  /** The app's environment additions: its own NODE_OPTIONS (`base`) with the preload after them. */
  env(base: string | undefined): Record<string, string> {
    const preload = JSON.stringify(path.join(this.dir, PRELOAD_FILE)); // NODE_OPTIONS reads "…" with \\ escapes
    return { [DIR_ENV]: this.dir, NODE_OPTIONS: `${base ?? ''} --require ${preload}`.trim() };
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
  return { pid: v.pid, ppid: v.ppid, kind, url: v.url, argv };
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
