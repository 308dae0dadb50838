// Process trees: the app may start workers, shells or child servers; a run owns all of them.
import * as fs from 'node:fs';

/** Every descendant of `pid` (children, grandchildren, …), read from /proc on Linux. */
export function descendantsOf(pid: number): number[] {
  if (process.platform !== 'linux') return [];
  const childrenOf = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // the process ended while we looked
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = childrenOf.get(ppid) ?? [];
    list.push(Number(name));
    childrenOf.set(ppid, list);
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

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(pids: number[], sig: NodeJS.Signals, group: number | undefined): void {
  if (group !== undefined && process.platform !== 'win32') {
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
