// The `hotline.*` settings, read in one place with their defaults (package.json declares them).
import * as vscode from 'vscode';
import { DEFAULT_STACK_RATE_HZ, RUN_DEFAULTS } from '../core/index.ts';

export interface HotlineSettings {
  entry: string;
  args: string[];
  url: string;
  /** A request mix file (JSON, YAML, HAR), relative to the workspace folder; empty: one URL. */
  requests: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  pipelining: number;
  duration: number;
  warmup: number;
  samplingInterval: number;
  timeout: number;
  listenTimeout: number;
  /** Seconds between the app's SIGTERM and SIGKILL when a run stops it. */
  stopGracePeriod: number;
  nodePath: string;
  env: Record<string, string>;
  decorations: boolean;
  decorationAfterText: boolean;
  codeLens: boolean;
  /** Allocation sampling in the profiled window (heap.heapprofile, bytes per function). */
  heapSampling: boolean;
  /** Event-loop stalls of at least this many ms are listed; 0: none. */
  stallThresholdMs: number;
  /** Stack captures a second in the profiled window (exact calling lines); 0: off. */
  stackCaptureRate: number;
  /** Time the app's threadpool requests in the profiled window. */
  threadpoolWaits: boolean;
  /** Lenses with the bytes a function allocates (runs with heap sampling). */
  heapLens: boolean;
  /** Attach may connect to an inspector on another host (it gives code execution). */
  allowRemoteAttach: boolean;
  /** The user's load tool instead of autocannon (core/load/external.ts); empty: autocannon. */
  loadCommand: string;
  /** Path prefixes of the machine that wrote a profile → folders here (relative: to the workspace folder). */
  pathMap: Record<string, string>;
}

export function readSettings(scope?: vscode.ConfigurationScope): HotlineSettings {
  const c = vscode.workspace.getConfiguration('hotline', scope);
  return {
    entry: c.get<string>('entry', ''),
    args: c.get<string[]>('args', []),
    url: c.get<string>('url', ''),
    requests: c.get<string>('requests', ''),
    method: c.get<string>('method', RUN_DEFAULTS.method),
    headers: c.get<Record<string, string>>('headers', {}),
    body: c.get<string>('body', ''),
    connections: c.get<number>('connections', RUN_DEFAULTS.connections),
    pipelining: c.get<number>('pipelining', RUN_DEFAULTS.pipelining),
    duration: c.get<number>('duration', RUN_DEFAULTS.durationS),
    warmup: c.get<number>('warmup', RUN_DEFAULTS.warmupS),
    samplingInterval: c.get<number>('samplingInterval', RUN_DEFAULTS.samplingIntervalUs),
    timeout: c.get<number>('timeout', RUN_DEFAULTS.timeoutS),
    listenTimeout: c.get<number>('listenTimeout', RUN_DEFAULTS.listenTimeoutS),
    stopGracePeriod: c.get<number>('stopGracePeriod', RUN_DEFAULTS.stopGraceS),
    nodePath: c.get<string>('nodePath', ''),
    env: c.get<Record<string, string>>('env', {}),
    decorations: c.get<boolean>('decorations.enabled', true),
    decorationAfterText: c.get<boolean>('decorations.afterText', true),
    codeLens: c.get<boolean>('codeLens.enabled', true),
    heapSampling: c.get<boolean>('heapSampling', false),
    stallThresholdMs: c.get<number>('stallThresholdMs', 50),
    threadpoolWaits: c.get<boolean>('threadpoolWaits', true),
    stackCaptureRate: c.get<number>('stackCaptureRate', DEFAULT_STACK_RATE_HZ),
    heapLens: c.get<boolean>('codeLens.allocations', true),
    allowRemoteAttach: c.get<boolean>('allowRemoteAttach', false),
    loadCommand: c.get<string>('loadCommand', ''),
    pathMap: c.get<Record<string, string>>('pathMap', {}),
  };
}
