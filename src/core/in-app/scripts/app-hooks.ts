// What the launched app runs for the session that drives it (host side: inspector/session.ts): the
// `listen` hook that reports each server through a binding, the guards that end the app when
// Hotline is gone, the inspector's close on the app's own loop, and what an attached app is asked.
import type { Server } from 'node:net';
import { builtin } from './shared/builtins.ts';
import { bootEnds, track } from './boot-threads.ts';
import { clearSlot, readSlot, writeSlot } from './shared/state.ts';

const CLOSING = 'hotline.closeInspector';

/**
 * Before the app's first line: every server that starts listening is reported through the
 * binding `binding` (an event, so no polling); the first ends the boot (boot-threads.ts), whose
 * worker threads are tracked from now on.
 */
export function watchListening(binding: string): void {
  const net = builtin('net');
  const report = (globalThis as unknown as Record<string, (payload: string) => void>)[binding];
  const server = net.Server.prototype as unknown as { listen: (...args: unknown[]) => unknown };
  const listen = server.listen;
  server.listen = function (this: Server, ...args: unknown[]) {
    this.once('listening', () => {
      bootEnds();
      try {
        report(JSON.stringify(this.address()));
      } catch {
        // the session has gone: nobody listens for the report
      }
    });
    return listen.apply(this, args);
  };
  track();
}

/** The app exits (code 70) if its parent (Hotline) dies without stopping it. */
export function exitWithParent(parentPid: number): void {
  setInterval(() => {
    if (process.ppid !== parentPid) process.exit(70);
  }, 500).unref();
}

/**
 * For an app started by a command line, whose parent is a watcher or a shell: once `ownerPid`
 * (Hotline) is gone without stopping it, the app ends its whole process group (the shell, the
 * watcher, itself), which a watcher would otherwise restart.
 */
export function endGroupWithOwner(ownerPid: number): void {
  setInterval(() => {
    try {
      process.kill(ownerPid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') return;
      if (process.platform === 'win32') process.exit(70);
      process.kill(0, 'SIGKILL');
    }
  }, 500).unref();
}

/**
 * Closes the app's inspector on its own loop (closing from inside the session's message could not
 * answer it); false, and nothing done, when the app handles SIGUSR1 itself (it could not be
 * reopened). The module is taken now: `require` exists only while the evaluation runs.
 */
export function closeInspectorSoon(): boolean {
  if (process.listenerCount('SIGUSR1') > 0) return false;
  const inspector = builtin('inspector');
  writeSlot(
    CLOSING,
    setImmediate(() => inspector.close()),
  );
  return true;
}

/** Calls off a close that has not run (the app's loop did not come round). */
export function cancelClose(): void {
  const pending = readSlot<NodeJS.Immediate>(CLOSING);
  if (pending) clearImmediate(pending);
  clearSlot(CLOSING);
}

/** Closes the inspector port after `ms`, once the session that asks has gone. */
export function closeInspectorAfter(ms: number): void {
  const inspector = builtin('inspector');
  setTimeout(() => inspector.close(), ms).unref();
}

/** The TCP servers already listening (for an app that ran before Hotline attached), as JSON. */
export function listeningServers(): string {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return JSON.stringify(
    handles
      .filter((h): h is Server => {
        const s = h as { address?: unknown; listen?: unknown; listening?: unknown } | null;
        return !!s && typeof s.address === 'function' && typeof s.listen === 'function' && !!s.listening;
      })
      .map((h) => h.address()),
  );
}

/** Who the app is, asked from inside, as JSON. */
export function whoAmI(): string {
  return JSON.stringify({ pid: process.pid, argv: process.argv, execArgv: process.execArgv, cwd: process.cwd() });
}
