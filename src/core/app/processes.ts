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
    text = execFileSync('ps', ['-A', '-o', 'pid=', '-o', 'ppid='], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
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

function signal(pids: number[], sig: NodeJS.Signals, group: number | undefined): void {
  if (process.platform === 'win32') {
    // No signals nor process groups: end each process with its tree (no grace: Windows has no
    // SIGTERM). A gone leader's pid may be another process by now: only `pids` are ended.
    for (const pid of pids) {
      spawnSync('taskkill', ['/PID', String(pid), '/T', '/F'], { stdio: 'ignore', timeout: 5000, windowsHide: true });
    }
    return;
  }
  if (group !== undefined) {
    try {
      process.kill(-group, sig);
    } catch {
      // the group is already gone
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

/**
 * Ends `pid` (a process-group leader we spawned detached) and all its descendants, including
 * ones that left the group: SIGTERM first so the app can close cleanly, SIGKILL after `graceMs`.
 */
export async function killTree(pid: number, exited: Promise<unknown>, graceMs: number, leaderGone = false): Promise<void> {
  if (leaderGone) {
    // The app already ended: only what is left of its process group may still run; its pid
    // may belong to someone else by now.
    signal([], 'SIGKILL', pid);
    return;
  }
  const tree = [pid, ...descendantsOf(pid)];
  signal(tree, 'SIGTERM', pid);
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((resolve) => setTimeout(resolve, graceMs, true).unref()),
  ]);
  // Descendants may outlive the leader, and new ones may have appeared meanwhile.
  const rest = [...new Set([...tree, ...descendantsOf(pid)])].filter(isAlive);
  if (timedOut || rest.length > 0) signal(rest, 'SIGKILL', pid);
  if (timedOut) await exited;
}

/** Last resort from a synchronous 'exit' handler: no waiting possible, so SIGKILL at once. */
export function killTreeNow(pid: number): void {
  signal([pid, ...descendantsOf(pid)], 'SIGKILL', pid);
}
