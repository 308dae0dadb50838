// Getting the app to listen: launched (a free port, the inspector connected before its first line,
// its first server awaited), started by a command line (start-command.ts) or attached to as it
// runs. Each start leaves what it started to the run's control (run-control.ts) to stop, and
// gives the rest to the run's later steps (started-app.ts).
import * as path from 'node:path';
import {
  accepts,
  AppProcess,
  AttachedApp,
  type AttachSpec,
  ChildInspectors,
  nodeChildrenOf,
  explicitPort,
  freePort,
} from '../app/index.ts';
import {
  type AppMark,
  InspectorSession,
  nodeVersionOf,
  type ProcessProfilers,
  type WindowKind,
} from '../inspector/index.ts';
import { type ListenAddress, RunError } from '../common/index.ts';
import type { RuntimeScript } from '../store/index.ts';
import { RUN_DEFAULTS } from './run-settings.ts';
import type { RunControl } from './run-control.ts';
import type { StackSampler } from './stacks/stack-sampler.ts';
import { captureRuntimeScripts } from './read-runtime-scripts.ts';
import { startCommand } from './start-command.ts';
import { checkReachable, childProfilers, type StartedApp } from './started-app.ts';

/** The app's scripts compiled in memory, with their maps (read-runtime-scripts.ts), or why they could not be read. */
export interface RuntimeScriptsRead {
  scripts: RuntimeScript[];
  note?: string;
}

/** Reads them once the app listens (its modules are loaded), before the warm-up. */
export async function readRuntimeScripts(run: RunControl): Promise<RuntimeScriptsRead> {
  try {
    return { scripts: await run.race(captureRuntimeScripts(run.inspector!.channel(), run.opts.target.cwd)) };
  } catch (err) {
    if (err instanceof RunError) throw err; // the run must stop (the app exited, a cancel)
    return {
      scripts: [],
      note: `The code of scripts compiled in memory could not be read (${(err as Error).message}): a loader's (tsx, ts-node) positions are not mapped.`,
    };
  }
}

/** A sub-window's edge in the app: its main process's mark with its children's CPU time. */
export async function appEdge(
  run: RunControl,
  processes: ProcessProfilers<StackSampler> | undefined,
  o: { open?: WindowKind; close?: WindowKind },
): Promise<AppMark> {
  const [mark, children] = await Promise.all([run.inspector!.edge(o), processes?.cpuMark()]);
  return children && Object.keys(children).length > 0 ? { ...mark, children } : mark;
}

export async function portToLaunchOn(url: string): Promise<number> {
  const fixedPort = explicitPort(url);
  if (fixedPort !== undefined && (await accepts(fixedPort))) {
    throw new RunError(
      'port-in-use',
      `Port ${fixedPort} of --url is already in use by another process: stop it, or pass a path (--url /…) and let Hotline pick a free port.`,
    );
  }
  return fixedPort ?? (await freePort());
}

/** An app that already runs (attach.ts): no listen hook, no parent watchdog, never stopped. */
export async function attachTo(run: RunControl, spec: AttachSpec): Promise<StartedApp> {
  run.progress('starting', `attaching to ${spec.target}`);
  // Cancelled while it connects: it must still be let go once connected.
  const app = await run.owned(AttachedApp.attach(spec, run.opts.signal), (a) => a.stop());
  run.app = run.attached = app;
  run.inspector = app.inspector;
  await run.race(app.inspector.quiet());
  run.watchApp(app);
  const children = nodeChildrenOf(app.pid);
  const childrenNote =
    children.length > 0
      ? `The app attached to has ${children.length} Node child process${children.length === 1 ? '' : 'es'} (${children.join(', ')}) that were not profiled: only the process attached to was. Let Hotline start the app to profile them all.`
      : undefined;
  return { address: await run.race(app.httpAddress(run.s.url)), childrenNote };
}

/** Starts the app on `port`: `node ENTRY` under the inspector, or the target's command line. */
export async function launch(run: RunControl, port: number): Promise<StartedApp> {
  const target = run.opts.target;
  if (target.command !== undefined) return startCommand(run, port, target.command);
  run.progress(
    'starting',
    `starting ${path.relative(target.cwd, path.resolve(target.cwd, target.entry)) || target.entry}`,
  );
  const children = run.opts.childProcesses === false ? undefined : ChildInspectors.create();
  if (children) run.disposers.push(() => children.dispose());
  const env = {
    PORT: String(port),
    ...(target.env ?? {}),
    ...children?.env(target.env && 'NODE_OPTIONS' in target.env ? target.env.NODE_OPTIONS : process.env.NODE_OPTIONS),
  };
  const { app, inspectorUrl } = await AppProcess.start({
    ...target,
    env,
    onOutput: run.opts.onOutput,
  });
  run.watchApp(app);
  run.inspector = await run.owned(InspectorSession.connect(inspectorUrl), (i) => i.close());
  const nodeVersion = await run.race(nodeVersionOf(inspectorUrl));
  let processes: ProcessProfilers<StackSampler> | undefined;
  if (children) {
    // The captures tick only while the child's profiler runs.
    const profilers = (processes = childProfilers(run));
    // Only other processes: the app's own pid would be a thread of it (the preload skips those).
    children.watch((c) => {
      if (c.pid !== app.pid) profilers.add(c);
    });
  }
  const listening = nextListening(run, port);
  let address: ListenAddress;
  try {
    await run.race(run.inspector.release());
    address = await run.race(listening.promise);
  } finally {
    listening.cancel();
  }
  await run.race(run.inspector.exitWithParent(process.pid));
  // From here on the app runs its own work without us in the way (InspectorSession.quiet).
  await run.race(run.inspector.quiet());
  return { address: await checkReachable(address, app.output()), launched: app, processes, nodeVersion };
}

/** The first TCP server the app opens; the one on PORT if it opens several at once. */
function nextListening(run: RunControl, port: number): { promise: Promise<ListenAddress>; cancel(): void } {
  const inspector = run.inspector!;
  const timeoutS = run.opts.listenTimeoutS ?? RUN_DEFAULTS.listenTimeoutS;
  let cancel = (): void => undefined;
  const promise = new Promise<ListenAddress>((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(
        new RunError(
          'never-listened',
          `The app did not start listening within ${timeoutS} s. Hotline set PORT=${port} and watched every server.listen() in the app; none was called. Is the entry file right, and does the app need other settings (env, args) to start its server?`,
          run.app?.output() ?? '',
        ),
      );
    }, timeoutS * 1000);
    const off = inspector.onListening((a) => {
      cancel();
      // Several servers in one tick: prefer the one on PORT.
      setImmediate(() => resolve(inspector.listening.find((l) => l.port === port) ?? a));
    });
    cancel = () => {
      clearTimeout(timer);
      off();
    };
  });
  promise.catch(() => undefined); // raced in launch(); a rejection nobody awaits is not an error
  return { promise, cancel };
}
