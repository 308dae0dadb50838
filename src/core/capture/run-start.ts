// Getting the app to listen: launched (a free port, the inspector connected before its first line,
// its first server awaited) or attached to as it runs.
import * as path from 'node:path';
import {
  accepts,
  AppProcess,
  AttachedApp,
  type AttachSpec,
  type ChildInspector,
  ChildInspectors,
  CommandApp,
  nodeChildrenOf,
  explicitPort,
  freePort,
  loopbackHostOf,
} from '../app/index.ts';
import {
  type AppMark,
  InspectorSession,
  nodeVersionOf,
  ProcessProfilers,
  type WindowKind,
} from '../inspector/index.ts';
import { type ListenAddress, RunError } from '../common/index.ts';
import { RUN_DEFAULTS } from './settings.ts';
import { RunControl } from './run-control.ts';
import { DEFAULT_STACK_RATE_HZ, StackSampler } from './stack-sampler.ts';
import { captureRuntimeScripts } from './runtime-scripts.ts';
import type { RuntimeScript } from '../store/index.ts';

export abstract class RunStart extends RunControl {
  /** Set when the run started the app itself (so it may close and reopen its inspector). */
  protected launched: AppProcess | undefined;

  /** The launched app's child processes (cluster workers, forks), profiled with it, each with its stack captures. */
  protected processes: ProcessProfilers<StackSampler> | undefined;
  /** Said in the report when the app attached to has Node children the run cannot profile. */
  protected childrenNote: string | undefined;
  /** The launched app's Node ("v20.20.0"): runs on two Nodes do not compare (report/comparable.ts). */
  protected nodeVersion: string | undefined;

  /** The app's scripts compiled in memory, with their maps (runtime-scripts.ts): saved with the run. */
  protected runtimeScripts: RuntimeScript[] = [];
  /** Said in the report when they could not be read. */
  protected runtimeScriptsNote: string | undefined;

  /** Reads them once the app listens (its modules are loaded), before the warm-up. */
  protected async readRuntimeScripts(): Promise<void> {
    try {
      this.runtimeScripts = await this.race(captureRuntimeScripts(this.inspector!.channel(), this.opts.target.cwd));
    } catch (err) {
      if (err instanceof RunError) throw err; // the run must stop (the app exited, a cancel)
      this.runtimeScriptsNote = `The code of scripts compiled in memory could not be read (${(err as Error).message}): a loader's (tsx, ts-node) positions are not mapped.`;
    }
  }

  /** A sub-window's edge in the app: its main process's mark with its children's CPU time. */
  protected async edge(o: { open?: WindowKind; close?: WindowKind }): Promise<AppMark> {
    const [mark, children] = await Promise.all([this.inspector!.edge(o), this.processes?.cpuMark()]);
    return children && Object.keys(children).length > 0 ? { ...mark, children } : mark;
  }

  protected async portToLaunchOn(): Promise<number> {
    const fixedPort = explicitPort(this.s.url);
    if (fixedPort !== undefined && (await accepts(fixedPort))) {
      throw new RunError(
        'port-in-use',
        `Port ${fixedPort} of --url is already in use by another process: stop it, or pass a path (--url /…) and let Hotline pick a free port.`,
      );
    }
    return fixedPort ?? (await freePort());
  }

  /** An app that already runs (attach.ts): no listen hook, no parent watchdog, never stopped. */
  protected async attachTo(spec: AttachSpec): Promise<ListenAddress> {
    this.progress('starting', `attaching to ${spec.target}`);
    const attaching = AttachedApp.attach(spec, this.opts.signal);
    // Cancelled while it connects: it must still be let go once connected.
    this.disposers.push(
      () =>
        void attaching.then(
          (a) => a.stop(),
          () => undefined,
        ),
    );
    const app = await attaching;
    this.app = this.attached = app;
    this.inspector = app.inspector;
    await this.race(app.inspector.quiet());
    this.stopReason = this.watch(app);
    this.stopReason.catch(() => undefined);
    const children = nodeChildrenOf(app.pid);
    if (children.length > 0)
      this.childrenNote = `The app attached to has ${children.length} Node child process${children.length === 1 ? '' : 'es'} (${children.join(', ')}) that were not profiled: only the process attached to was. Let Hotline start the app to profile them all.`;
    return this.race(app.httpAddress(this.s.url));
  }

  /**
   * A command line (command.ts): its Node processes open their inspector once they listen, the
   * first to report is the app (the one on PORT among servers opened together), later ones are
   * its children. The app already runs when the session connects: nothing is awaited before it.
   */
  protected async startCommand(port: number, command: string): Promise<ListenAddress> {
    const target = this.opts.target;
    this.progress('starting', `running ${command}`);
    const children = ChildInspectors.create();
    this.disposers.push(() => children.dispose());
    const base = target.env && 'NODE_OPTIONS' in target.env ? target.env.NODE_OPTIONS : process.env.NODE_OPTIONS;
    // Flags for node itself go to every Node process the command starts.
    const nodeOptions = [withoutInspectorFlags(base), ...(target.runtimeArgs ?? [])].filter(Boolean).join(' ');
    const app = CommandApp.start({
      cwd: target.cwd,
      command,
      script: target.script,
      nodePath: target.nodePath,
      env: { PORT: String(port), ...(target.env ?? {}), ...children.env(nodeOptions, { command: true }) },
      onOutput: (stream, text) => {
        this.output.push(text);
        this.opts.onOutput?.(stream, text);
      },
    });
    this.app = app;
    this.stopReason = this.watch(app);
    this.stopReason.catch(() => undefined);
    const rateHz = this.opts.stackRateHz ?? DEFAULT_STACK_RATE_HZ;
    const processes = (this.processes = new ProcessProfilers<StackSampler>(
      rateHz > 0 ? (channel) => StackSampler.start(channel, rateHz, { paused: true }) : undefined,
    ));
    this.disposers.push(() => void processes.dispose());
    let server: ChildInspector | undefined;
    const found = new Promise<ChildInspector>((resolve) => {
      children.watch((c) => {
        if (server !== undefined || !c.listening) {
          if (server !== undefined && this.opts.childProcesses !== false) processes.add(c);
          return;
        }
        server = c;
        resolve(c);
      });
    });
    const timeoutS = this.opts.listenTimeoutS ?? RUN_DEFAULTS.listenTimeoutS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new RunError(
              'never-listened',
              `No Node process of \`${command}\` started listening within ${timeoutS} s (Hotline set PORT=${port} and watched every server.listen() of every Node process it started). Does the command start the server, and does it need other settings (env, args)?`,
              app.output(),
            ),
          ),
        timeoutS * 1000,
      );
    });
    let c: ChildInspector;
    try {
      c = await this.race(Promise.race([found, timedOut]));
    } finally {
      clearTimeout(timer);
    }
    this.inspector = await this.owned(InspectorSession.connect(c.url), (i) => i.close());
    this.nodeVersion = await this.race(nodeVersionOf(c.url));
    const address = c.listening!.find((l) => l.port === port) ?? c.listening![0];
    app.serving(c.pid, address.port);
    await this.race(this.inspector.endGroupWithOwner(process.pid));
    this.progress('starting', `the app is process ${c.pid} (${c.argv.join(' ')}), listening on port ${address.port}`);
    await this.race(this.inspector.quiet());
    return this.checkReachable(address, app.output());
  }

  protected async start(port: number): Promise<ListenAddress> {
    const target = this.opts.target;
    if (target.command !== undefined) return this.startCommand(port, target.command);
    this.progress(
      'starting',
      `starting ${path.relative(target.cwd, path.resolve(target.cwd, target.entry)) || target.entry}`,
    );
    const children = this.opts.childProcesses === false ? undefined : ChildInspectors.create();
    if (children) this.disposers.push(() => children.dispose());
    const env = {
      PORT: String(port),
      ...(target.env ?? {}),
      ...children?.env(target.env && 'NODE_OPTIONS' in target.env ? target.env.NODE_OPTIONS : process.env.NODE_OPTIONS),
    };
    const { app, inspectorUrl } = await AppProcess.start({
      ...target,
      env,
      onOutput: (stream, text) => {
        this.output.push(text);
        this.opts.onOutput?.(stream, text);
      },
    });
    this.app = this.launched = app;
    this.stopReason = this.watch(app);
    this.stopReason.catch(() => undefined); // observed by every wait below
    this.inspector = await this.owned(InspectorSession.connect(inspectorUrl), (i) => i.close());
    this.nodeVersion = await this.race(nodeVersionOf(inspectorUrl));
    if (children) {
      // Each child's calling lines are measured as the main process's are, at the same rate, in
      // the same sub-windows (the captures tick only while its profiler runs).
      const rateHz = this.opts.stackRateHz ?? DEFAULT_STACK_RATE_HZ;
      const processes = (this.processes = new ProcessProfilers<StackSampler>(
        rateHz > 0 ? (channel) => StackSampler.start(channel, rateHz, { paused: true }) : undefined,
      ));
      this.disposers.push(() => void processes.dispose());
      // Only other processes: the app's own pid would be a thread of it (the preload skips those).
      children.watch((c) => {
        if (c.pid !== app.pid) processes.add(c);
      });
    }
    const listening = this.nextListening(port);
    let address: ListenAddress;
    try {
      await this.race(this.inspector.release());
      address = await this.race(listening.promise);
    } finally {
      listening.cancel();
    }
    await this.race(this.inspector.exitWithParent(process.pid));
    // From here on the app runs its own work without us in the way (InspectorSession.quiet).
    await this.race(this.inspector.quiet());
    return this.checkReachable(address, app.output());
  }

  /** The address the load goes to: a loopback one that accepts connections. */
  private async checkReachable(address: ListenAddress, output: string): Promise<ListenAddress> {
    const host = loopbackHostOf(address);
    if (host === undefined) {
      throw new RunError(
        'never-listened',
        `The app listens on ${address.address}:${address.port} only, not on a loopback address: Hotline loads only 127.0.0.1 or ::1. Make it listen on all interfaces or on localhost.`,
        output,
      );
    }
    if (!(await accepts(address.port, host))) {
      throw new RunError(
        'never-listened',
        `The app reported listening on port ${address.port} but refuses connections on ${host}.`,
        output,
      );
    }
    return address;
  }

  /** The first TCP server the app opens; the one on PORT if it opens several at once. */
  private nextListening(port: number): { promise: Promise<ListenAddress>; cancel(): void } {
    const inspector = this.inspector!;
    const timeoutS = this.opts.listenTimeoutS ?? RUN_DEFAULTS.listenTimeoutS;
    let cancel = (): void => undefined;
    const promise = new Promise<ListenAddress>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(
          new RunError(
            'never-listened',
            `The app did not start listening within ${timeoutS} s. Hotline set PORT=${port} and watched every server.listen() in the app; none was called. Is the entry file right, and does the app need other settings (env, args) to start its server?`,
            this.app?.output() ?? '',
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
    promise.catch(() => undefined); // raced in start(); a rejection nobody awaits is not an error
    return { promise, cancel };
  }
}

const INSPECTOR_FLAG = /^--(inspect|inspect-brk|inspect-port|debug-port|inspect-wait|inspect-publish-uid)(=|$)/;

/** NODE_OPTIONS without an --inspect of its own (it would open a second, wider door). */
function withoutInspectorFlags(options: string | undefined): string {
  return (options ?? '')
    .split(/\s+/)
    .filter((a) => a && !INSPECTOR_FLAG.test(a))
    .join(' ');
}
