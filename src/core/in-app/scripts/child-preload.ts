// The preload of every Node process the launched app starts (host side: app/child-processes.ts,
// which says why): written to a private folder and run through NODE_OPTIONS=--require, before the
// process's first line, whatever its module system. In the process Hotline launched it only drops
// the inspector flags from process.execArgv (children would inherit them); in a child it opens the
// inspector without waiting and writes `<pid>.json` with its address, or, under a start command,
// waits until the process listens (the first to listen is the app).
import { bootEnds, track } from './boot-threads.ts';
import { record } from './console.ts';
import type { Server } from 'node:net';
import { builtin } from './shared/builtins.ts';

/** The environment variables the host sets (child-processes.ts). */
export interface PreloadEnv {
  /** The private folder: its address files go there. */
  dir: string;
  /** Set to '1' for a start command. */
  command: string;
  /** Set by the app's process once it listens. */
  app: string;
}

const INSPECTOR_FLAG = /^--(inspect|inspect-brk|inspect-port|debug-port|inspect-wait|inspect-publish-uid)(=|$)/;

export function run(names: PreloadEnv): void {
  const dir = process.env[names.dir];
  // Worker threads run preloads too: they are profiled through their process's own inspector.
  if (!dir || !builtin('worker_threads').isMainThread) return;
  const inspector = builtin('inspector');
  if (inspector.url()) {
    // The process Hotline started: its children must not inherit its inspector flags.
    for (let i = process.execArgv.length - 1; i >= 0; i--)
      if (INSPECTOR_FLAG.test(process.execArgv[i])) process.execArgv.splice(i, 1);
    return;
  }
  // The console's own methods, before the app's code: its profiled windows swap only these.
  record();
  // A preload has its own `require` at any time: the modules below are taken only when needed.
  const report = (listening: unknown[] | undefined): void => {
    try {
      inspector.open(0, '127.0.0.1', false);
    } catch {
      return; // the inspector is unavailable here: this process runs unprofiled
    }
    const url = inspector.url();
    if (!url) return;
    const fs = builtin('fs');
    const kind = typeof process.send !== 'function' ? 'spawn' : builtin('cluster').isWorker ? 'cluster' : 'fork';
    const file = builtin('path').join(dir, `${process.pid}.json`);
    try {
      const about = { pid: process.pid, ppid: process.ppid, kind, url, argv: process.argv.slice(1), listening };
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(about), { mode: 0o600 });
      fs.renameSync(`${file}.tmp`, file);
    } catch {
      inspector.close(); // Hotline has gone (its folder with it): nobody will attach
    }
  };
  // A start command (npm, a watcher, a framework CLI) runs Node processes that are not the app:
  // until one of them serves a TCP port, none opens an inspector (nothing slows them, nothing is
  // left open). The first to listen is the app; what it starts from then on is its children.
  if (process.env[names.command] === '1' && !process.env[names.app]) {
    // The worker threads it makes until it listens are its boot's (boot-threads.ts).
    track();
    const server = builtin('net').Server.prototype as unknown as { listen: (...args: unknown[]) => unknown };
    const listen = server.listen;
    let servers: unknown[] | undefined;
    server.listen = function (this: Server, ...args: unknown[]) {
      this.once('listening', () => {
        const a = this.address();
        if (!a || typeof a !== 'object') return; // a pipe or a unix socket: no HTTP to load
        if (servers) return void servers.push(a);
        bootEnds();
        servers = [a];
        process.env[names.app] = String(process.pid);
        // Servers opened in the same turn are reported together (the one on PORT is chosen).
        setImmediate(() => report(servers));
      });
      return listen.apply(this, args);
    };
    return;
  }
  report(undefined);
}
