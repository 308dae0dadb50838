// The CPU time of the app's whole process tree, read from outside it (Linux /proc): the gate's
// CPU per request (side-by-side.ts). Read by Hotline at the two edges of the window the load
// counts, it needs no round trip through the app's inspector, and it holds every thread of every
// process the app started (workers, forks, a shell's node), and the children they reaped.
// utime and stime count in clock ticks (100 a second): a window of 2 s of one busy core is ~200
// ticks, whose edges fall at random points of a tick, so the reading is within ~0.2% (SD).
import * as fs from 'node:fs';
import { descendantsOf } from '../app/index.ts';

/** Clock ticks a second of /proc/PID/stat (USER_HZ: 100 on every Linux Node runs on). */
const TICKS_PER_S = 100;

/** One reading: seconds of CPU of the tree, and when (monotonic, seconds). */
export interface TreeCpuMark {
  cpuS: number;
  atS: number;
}

/**
 * utime + stime + cutime + cstime of `pid` and of every descendant, in seconds; undefined where
 * there is no /proc or the process is gone. A descendant that exits between two readings moves its
 * time into its parent's cutime/cstime once reaped (a zombie still shows its own), so the sum
 * does not lose it; one born between them counts from its start.
 */
export function treeCpuSeconds(pid: number, procRoot = '/proc'): number | undefined {
  if (process.platform !== 'linux' || !(pid > 0)) return undefined;
  const own = statTicks(pid, procRoot);
  if (own === undefined) return undefined;
  let ticks = own;
  for (const child of descendantsOf(pid)) ticks += statTicks(child, procRoot) ?? 0;
  return ticks / TICKS_PER_S;
}

export function treeCpuMark(pid: number | undefined): TreeCpuMark | undefined {
  const cpuS = pid === undefined ? undefined : treeCpuSeconds(pid);
  return cpuS === undefined ? undefined : { cpuS, atS: performance.now() / 1000 };
}

/**
 * CPU ms per request over a window: the tree's CPU per second between its two marks, over the
 * requests per second the load counted (a ratio of rates, as record.ts cpuPerRequest: the marks
 * and the load's phase switch are a few ms apart). Undefined without both marks or requests.
 */
export function treeCpuMsPerRequest(
  a: TreeCpuMark | undefined,
  b: TreeCpuMark | undefined,
  load: { requests: number; durationS: number },
): number | undefined {
  if (!a || !b || load.requests <= 0 || load.durationS <= 0) return undefined;
  const wallS = b.atS - a.atS;
  const cpuS = b.cpuS - a.cpuS;
  if (!(wallS > 0) || !(cpuS > 0)) return undefined;
  return Math.round(((cpuS / wallS) * 1000 * load.durationS * 1e4) / load.requests) / 1e4;
}

/** Fields 14–17 of /proc/PID/stat (utime stime cutime cstime), after "pid (comm)". */
export function statTicks(pid: number, procRoot = '/proc'): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return ticksOfStat(stat);
}

/** The CPU ticks of one stat line: comm may hold spaces and ')', so fields count after the last ')'. */
export function ticksOfStat(stat: string): number | undefined {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const t = [f[11], f[12], f[13], f[14]].map(Number);
  return t.every((x) => Number.isFinite(x) && x >= 0) ? t.reduce((s, x) => s + x, 0) : undefined;
}
