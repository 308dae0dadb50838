// Process trees: the app may start workers, shells or child servers; a run owns all of them.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';

/**
 * Every descendant of `pid` (children, grandchildren, …): from /proc on Linux, from `ps` on macOS
 * and the BSDs. None on Windows, where `taskkill /T` walks the tree itself (see `signal`).
 */
export function descendantsOf(pid: number, table: Array<[number, number]> = parentTable()): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const [child, parent] of table) {
    const list = childrenOf.get(parent) ?? [];
    list.push(child);
    childrenOf.set(parent, list);
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of childrenOf.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** [pid, parent pid] of every process this user can see. */
function parentTable(): Array<[number, number]> {
  if (process.platform === 'linux') return parentsFromProc();
  if (process.platform === 'win32') return [];
  return parentsFromPs();
}

function parentsFromProc(): Array<[number, number]> {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const out: Array<[number, number]> = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // the process ended while we looked
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
    out.push([Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])]);
  }
  return out;
}

/** POSIX `ps` (macOS, the BSDs; Linux too, which the tests use to check it). */
export function parentsFromPs(): Array<[number, number]> {
  let text: string;
  try {
    text = execFileSync('ps', ['-A', '-o', 'pid=', '-o', 'ppid='], {
      encoding: 'utf8',
      timeout: 5000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return []; // no ps: only the process group is signalled
  }
  const out: Array<[number, number]> = [];
  for (const line of text.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (Number.isInteger(pid) && Number.isInteger(ppid)) out.push([pid, ppid]);
  }
  return out;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process group of `pid` (field 5 of /proc/PID/stat), undefined when unknown or gone. */
function groupOf(pid: number): number | undefined {
  return process.platform === 'linux' ? statOf(pid)?.pgrp : undefined;
}

/** State and process group of `pid` (fields 3 and 5 of /proc/PID/stat); undefined when unknown or gone. */
function statOf(pid: number): { state: string; pgrp: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/**
 * True while any process of group `pgid` runs. A zombie does not count: it has ended, and an
 * orphan's zombie waits for PID 1 to reap it, which in a container may never happen.
 */
function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32') return false;
  if (process.platform === 'linux') {
    try {
      return fs.readdirSync('/proc').some((name) => {
        if (!/^\d+$/.test(name)) return false;
        const st = statOf(Number(name));
        return st !== undefined && st.pgrp === pgid && st.state !== 'Z';
      });
    } catch {
      // no /proc: ask the kernel below
    }
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function send(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // already gone
  }
}

/**
 * One signal per process: the group gets it once (every member of the group), and only the
 * descendants that left the group (setsid, detached children) get it by pid. Sending it to the
 * group and to each pid as well gave an app with a graceful shutdown a second SIGTERM in the
 * middle of it, and the default action of that second one killed it with half-written files.
 */
function signalTree(group: number, pids: number[], sig: NodeJS.Signals): void {
  if (process.platform === 'win32') {
    // No signals nor process groups: end each process with its tree (no grace: Windows has no
    // SIGTERM). A gone leader's pid may be another process by now: only `pids` are ended.
    for (const pid of pids) {
      spawnSync('taskkill', ['/PID', String(pid), '/T', '/F'], { stdio: 'ignore', timeout: 5000, windowsHide: true });
    }
    return;
  }
  send(-group, sig);
  for (const pid of pids) if (pid !== group && groupOf(pid) !== group) send(pid, sig);
}

/** Resolves true once `gone()` holds, false after `ms`; polls because a grandchild's end sends no event. */
async function until(gone: () => boolean, exited: Promise<unknown>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  let leaderDone = false;
  void exited.then(() => {
    leaderDone = true;
  });
  for (;;) {
    if (leaderDone && gone()) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, left)));
  }
}

/**
 * Ends `pid` (a process-group leader we spawned detached) and all its descendants, including
 * ones that left the group: one SIGTERM each, up to `graceMs` for the whole tree to end on its
 * own (an app flushes files and closes connections), then SIGKILL for whatever is left.
 */
export async function killTree(
  pid: number,
  exited: Promise<unknown>,
  graceMs: number,
  leaderGone = false,
): Promise<void> {
  // When the app already ended, its pid may belong to someone else by now: only its process
  // group (whatever it started and left behind) is still ours to end.
  const tree = leaderGone ? [] : [pid, ...descendantsOf(pid)];
  signalTree(pid, tree, 'SIGTERM');
  const outside = tree.filter((p) => p !== pid && groupOf(p) !== pid);
  const allGone = (): boolean => !groupAlive(pid) && outside.every((p) => !isAlive(p) || statOf(p)?.state === 'Z');
  if (await until(allGone, leaderGone ? Promise.resolve() : exited, graceMs)) return;
  // Descendants may outlive the leader, and new ones may have appeared meanwhile.
  const rest = [...new Set([...tree, ...(leaderGone ? [] : descendantsOf(pid))])].filter(isAlive);
  signalTree(pid, rest, 'SIGKILL');
  // A killed process ends once the kernel schedules it again (on a busy machine, a while after
  // the leader): the tree is gone only when all of it is, not just the leader.
  await until(allGone, exited, KILLED_GONE_MS);
}

/** How long the processes SIGKILLed may take to be gone (they cannot refuse; they must be scheduled). */
const KILLED_GONE_MS = 2000;

/** Last resort from a synchronous 'exit' handler: no waiting possible, so SIGKILL at once. */
export function killTreeNow(pid: number): void {
  signalTree(pid, [pid, ...descendantsOf(pid)], 'SIGKILL');
}
