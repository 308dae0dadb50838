// What the profiled window captures besides the main thread's CPU profile: the worker threads'
// CPU profiles (always), the main thread's allocation sampling (with --heap), the stall probe,
// the wait probe and the console swap (console-swap.ts). The profiled window is taken as several
// sub-windows between the measured ones (run.ts): everything here is switched on in
// `startSubWindow` and off in `endSubWindow`, so the measured sub-windows run with none of it. Probes of the profiled window belong here.
// `saveExtras` writes the files into the run folder and returns what run.json records about them.
import * as path from 'node:path';
import {
  type InspectorSession,
  MAX_CHILD_PROCESSES,
  type ProcessCapture,
  type ProcessProfilers,
  type RouteTrace,
  type StallGap,
  type WaitTrace,
  type WorkerCapture,
  WorkerProfilers,
} from '../../inspector/index.ts';
import { mergeWaitTraces } from './wait-traces.ts';
import { mergeRouteTraces } from './route-traces.ts';
import { labelWaits } from './wait-labels.ts';
import { routeThreadTimes, type RouteThreadTime } from './route-thread-time.ts';
import {
  type CpuProfile,
  mergedClock,
  mergeHeapProfiles,
  mergeProfiles,
  type SamplingHeapProfile,
} from '../../profile/index.ts';
import {
  type ExtrasRecord,
  HEAP_FILE,
  ROUTES_FILE,
  type RoutesFile,
  type StallsRecord,
  WAITS_FILE,
  workerProfileFile,
  writeFileAtomic,
} from '../../store/index.ts';
import { saveProcesses } from './child-profiles.ts';
import type { StackSampler } from '../stacks/stack-sampler.ts';

/** Worker profiles kept per run (an app may start a worker per job: thousands of them). */
export const MAX_WORKER_PROFILES = 64;

/** V8's default: one sample per 32 KiB allocated on average. */
export const DEFAULT_HEAP_INTERVAL_BYTES = 32 * 1024;

export interface ExtrasOptions {
  samplingIntervalUs: number;
  /** Allocation sampling of the main thread, when set. */
  heap?: { samplingIntervalBytes?: number };
  /**
   * The app's child processes (a launched app's cluster workers and forks), profiled in the same
   * sub-windows, with their stack captures.
   */
  processes?: ProcessProfilers<StackSampler>;
  /** Event-loop stalls of at least this many ms are noted (stall-probe.ts); 0: none. */
  stallThresholdMs?: number;
  /** Note the app's threadpool requests (wait-probe.ts). */
  waits?: boolean;
  /** The loaded URL's path and query: the requests the wait probe counts calls against. */
  loadedPath?: string;
  /** Label the main thread's work with the HTTP request it serves (route-probe.ts). */
  routes?: boolean;
}

export interface ExtrasCaptured {
  workers: WorkerCapture[];
  heap?: { profile: SamplingHeapProfile; samplingIntervalBytes: number };
  processes?: ProcessCapture<StackSampler>[];
  stalls?: StallsRecord;
  waits?: WaitTrace;
  routes?: RoutesFile;
  /**
   * Each profiled sub-window's route thread times, in order (route-thread-time.ts; undefined for
   * one whose timeline filled): the routes' values per sub-window, which their verdicts need.
   */
  routeTimes?: Array<RouteThreadTime[] | undefined>;
  notes: string[];
}

export class ProfiledExtras {
  private readonly heapProfiles: SamplingHeapProfile[] = [];
  private heapOn = false;
  private readonly stallGaps: StallGap[] = [];
  private stallProbeOn = false;
  private stallsClipped = 0;
  private readonly waitTraces: WaitTrace[] = [];
  private waitProbeOn = false;
  private readonly routeTraces: RouteTrace[] = [];
  private routeProbeOn = false;
  /** The console's printing methods are the open inspector's blind copies (console-swap.ts). */
  private consoleSwapped = false;

  /** Earlier watches of the workers, through sessions since closed (closed-inspector.ts). */
  private readonly earlierWatches: WorkerProfilers[] = [];

  private constructor(
    private inspector: InspectorSession,
    private workers: WorkerProfilers | undefined,
    private readonly o: ExtrasOptions,
    private readonly heapInterval: number | undefined,
    private readonly notes: string[],
  ) {}

  /** Before the first profiled sub-window: finds the worker threads (nothing is switched on yet). */
  static async open(inspector: InspectorSession, o: ExtrasOptions): Promise<ProfiledExtras> {
    const notes: string[] = [];
    // Watching since the app's first line (the session's own), or from now (an app attached to).
    let workers: WorkerProfilers | undefined;
    try {
      workers = inspector.workers ?? (await WorkerProfilers.watch(inspector.channel()));
    } catch (err) {
      // An old Node without the NodeWorker domain: the main thread is still profiled.
      notes.push(`Worker threads were not profiled: ${(err as Error).message}`);
    }
    const heapInterval = o.heap ? (o.heap.samplingIntervalBytes ?? DEFAULT_HEAP_INTERVAL_BYTES) : undefined;
    return new ProfiledExtras(inspector, workers, o, heapInterval, notes);
  }

  /**
   * The app's inspector is about to close (a measured sub-window): the workers are let go, what
   * was taken of them kept.
   */
  letGo(): void {
    if (!this.workers) return;
    this.workers.dispose();
    this.earlierWatches.push(this.workers);
  }

  /**
   * A new session after the inspector was reopened: the workers are watched again through it,
   * each continuing its capture (WorkerProfilers.watch's `carried`).
   */
  async useSession(inspector: InspectorSession): Promise<void> {
    this.inspector = inspector;
    const last = this.earlierWatches[this.earlierWatches.length - 1];
    if (!last) return;
    try {
      this.workers = await WorkerProfilers.watch(inspector.channel(), { carried: last.watchedFromStart });
    } catch (err) {
      this.workers = undefined;
      this.notes.push(`Worker threads were not profiled after the inspector was reopened: ${(err as Error).message}`);
    }
  }

  /** Every worker's capture over all watches, in the order they joined. */
  private allTaken(current: readonly WorkerCapture[]): WorkerCapture[] {
    const all: WorkerCapture[] = [];
    for (const c of [...this.earlierWatches.flatMap((w) => w.taken), ...current]) if (!all.includes(c)) all.push(c);
    return all;
  }

  /** Right after the main thread's profiler started; `first`: the window's first sub-window. */
  async startSubWindow(first: boolean): Promise<void> {
    this.consoleSwapped = (await this.inspector.swapConsole()) > 0;
    await this.workers?.startWindow(this.o.samplingIntervalUs, first);
    await this.o.processes?.startWindow(this.o.samplingIntervalUs, first);
    if (this.heapInterval !== undefined) {
      await this.inspector.startHeapSampling(this.heapInterval);
      this.heapOn = true;
    }
    if (this.o.stallThresholdMs) {
      await this.inspector.startStallProbe(this.o.stallThresholdMs);
      this.stallProbeOn = true;
    }
    if (this.o.waits) {
      await this.inspector.startWaitProbe(this.o.loadedPath);
      this.waitProbeOn = true;
    }
    if (this.o.routes) {
      await this.inspector.startRouteProbe();
      this.routeProbeOn = true;
    }
  }

  async nextSegment(): Promise<void> {
    await Promise.all([this.workers?.nextSegment(), this.o.processes?.nextSegment()]);
  }

  /** At a profiled sub-window's end: everything off, what it took is kept. */
  async endSubWindow(): Promise<void> {
    await Promise.all([this.workers?.pauseWindow(), this.o.processes?.pauseWindow()]);
    if (this.consoleSwapped) {
      this.consoleSwapped = false;
      await this.inspector.restoreConsole();
    }
    if (this.stallProbeOn) {
      this.stallProbeOn = false;
      const taken = await this.inspector.takeStallGaps();
      this.stallGaps.push(...taken.gaps);
      this.stallsClipped += taken.clipped;
    }
    let waits: WaitTrace | undefined;
    let routes: RouteTrace | undefined;
    if (this.waitProbeOn) {
      this.waitProbeOn = false;
      waits = await this.inspector.takeWaitTrace();
    }
    if (this.routeProbeOn) {
      this.routeProbeOn = false;
      routes = await this.inspector.takeRouteTrace();
      if (routes) this.routeTraces.push(routes);
    }
    // Each wait labelled with the request it was made for, from the same sub-window's timeline.
    if (waits) this.waitTraces.push(routes ? labelWaits(waits, routes) : waits);
    if (this.heapOn) {
      this.heapOn = false;
      this.heapProfiles.push(await this.inspector.stopHeapSampling());
    }
  }

  /** After the last sub-window ended, while the app still runs; `segments`: the main thread's profiles. */
  async finish(segments: readonly CpuProfile[]): Promise<ExtrasCaptured> {
    const workers = this.allTaken((await this.workers?.stop()) ?? []);
    const heap =
      this.heapInterval !== undefined && this.heapProfiles.length > 0
        ? { profile: mergeHeapProfiles(this.heapProfiles), samplingIntervalBytes: this.heapInterval }
        : undefined;
    const processes = await this.o.processes?.finish();
    const skipped = this.o.processes?.skipped ?? 0;
    const notes =
      skipped > 0
        ? [
            ...this.notes,
            `${skipped} more child processes started: only the first ${MAX_CHILD_PROCESSES} were profiled.`,
          ]
        : this.notes;
    return {
      workers,
      heap,
      stalls: this.stallsOn(segments),
      waits: mergeWaitTraces(this.waitTraces),
      routes: mergeRouteTraces(this.routeTraces, segments),
      ...(this.routeTraces.length > 0 ? { routeTimes: this.routeTraces.map(routeThreadTimes) } : {}),
      notes,
      ...(processes ? { processes } : {}),
    };
  }

  /** The app exited in the window: whatever was taken up to then. */
  async salvage(segments: readonly CpuProfile[]): Promise<ExtrasCaptured> {
    const workers = this.allTaken((await this.workers?.salvage()) ?? []);
    const processes = await this.o.processes?.salvage();
    const last = this.heapOn ? await this.inspector.salvagedHeapProfile() : undefined;
    const profiles = last ? [...this.heapProfiles, last] : this.heapProfiles;
    const notes = [...this.notes];
    if (this.heapOn && !last)
      notes.push('The allocation profile of the last profiled sub-window was lost when the app exited.');
    if (this.stallProbeOn || this.waitProbeOn)
      notes.push('The stalls and threadpool waits of the last profiled sub-window were lost when the app exited.');
    return {
      workers,
      stalls: this.stallsOn(segments),
      waits: mergeWaitTraces(this.waitTraces),
      routes: mergeRouteTraces(this.routeTraces, segments),
      heap:
        this.heapInterval !== undefined && profiles.length > 0
          ? { profile: mergeHeapProfiles(profiles), samplingIntervalBytes: this.heapInterval }
          : undefined,
      notes,
      ...(processes ? { processes } : {}),
    };
  }

  /** The gaps noted, on the merged profile's timeline; a gap the profiler did not record wholly is left out. */
  private stallsOn(segments: readonly CpuProfile[]): StallsRecord | undefined {
    const thresholdMs = this.o.stallThresholdMs;
    if (!thresholdMs || segments.length === 0) return undefined;
    const clock = mergedClock(segments);
    const gaps: Array<[number, number, number]> = [];
    let unrecorded = 0;
    for (const [start, end] of this.stallGaps) {
      const from = clock(start);
      const to = clock(end);
      // Both ends in one segment: a profiler restart (our own pause) between them is not the app's stall.
      if (from !== undefined && to !== undefined && Math.abs(to - from - (end - start)) < 1)
        gaps.push([from, to, start]);
      else unrecorded++;
    }
    return { thresholdMs, gaps, unrecorded, clipped: this.stallsClipped };
  }

  dispose(): void {
    const w = this.workers;
    if (w && w !== this.inspector.workers && !this.earlierWatches.includes(w)) w.dispose();
  }
}

/** Writes the worker profiles and the heap profile into the run folder. */
export function saveExtras(runDir: string, c: ExtrasCaptured): ExtrasRecord {
  const record: ExtrasRecord = { workers: [], notes: [...c.notes] };
  const withProfile = c.workers.filter((w) => w.segments.length > 0);
  if (withProfile.length > MAX_WORKER_PROFILES) {
    record.notes.push(
      `${withProfile.length} worker threads ran in the profiled window: the first ${MAX_WORKER_PROFILES} are kept and analyzed, the others are left out.`,
    );
  }
  const kept = new Set(withProfile.slice(0, MAX_WORKER_PROFILES));
  for (const w of c.workers) {
    if (w.segments.length > 0 && !kept.has(w)) continue;
    const name = w.info.title || `worker ${w.info.threadId}`;
    if (w.segments.length === 0) {
      record.notes.push(`Worker thread ${name} gave no profile${w.lost ? ` (${w.lost})` : ''}.`);
      continue;
    }
    const file = workerProfileFile(w.info.threadId);
    writeFileAtomic(path.join(runDir, file), JSON.stringify(mergeProfiles(w.segments)));
    record.workers.push({
      threadId: w.info.threadId,
      title: w.info.title,
      url: w.info.url,
      file,
      joinedLate: w.joinedLate,
      exitedEarly: w.exitedEarly,
      ...(w.startedAtBoot && !w.joinedLate ? { startedAtBoot: true } : {}),
    });
    if (w.exitedEarly)
      record.notes.push(`Worker thread ${name} exited during the profiled window: its profile ends there.`);
    if (w.joinedLate)
      record.notes.push(`Worker thread ${name} started during the profiled window: its profile starts there.`);
    if (w.lost) record.notes.push(`Part of worker thread ${name}'s profile was lost: ${w.lost}.`);
  }
  if (c.processes) saveProcesses(runDir, c.processes, record);
  if (c.heap) {
    writeFileAtomic(path.join(runDir, HEAP_FILE), JSON.stringify(c.heap.profile));
    record.heap = { file: HEAP_FILE, samplingIntervalBytes: c.heap.samplingIntervalBytes };
  }
  if (c.stalls) record.stalls = c.stalls;
  if (c.waits) {
    writeFileAtomic(path.join(runDir, WAITS_FILE), JSON.stringify(c.waits));
    record.waits = {
      file: WAITS_FILE,
      requests: c.waits.requests.length,
      pending: c.waits.pending.length,
      dropped: c.waits.dropped,
    };
  }
  if (c.routes) {
    writeFileAtomic(path.join(runDir, ROUTES_FILE), JSON.stringify(c.routes));
    record.routes = { file: ROUTES_FILE, requests: c.routes.requests.length / 7, changes: c.routes.changes.length / 2 };
  }
  return record;
}
