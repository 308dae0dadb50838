// Node's built-in modules, from code that runs inside the app. A script the inspector evaluates
// has no `require` of its own (an ES module app has none at all): Node ≥ 20.16 gives
// process.getBuiltinModule; before it, the inspector's command-line API lends `require`, but only
// while the evaluation runs. So a script takes every module it needs when it is called, never
// later from a callback.
import type * as asyncHooksModule from 'node:async_hooks';
import type * as consoleModule from 'node:console';
import type * as diagnosticsChannelModule from 'node:diagnostics_channel';
import type * as fsModule from 'node:fs';
import type * as httpModule from 'node:http';
import type * as inspectorModule from 'node:inspector';
import type * as netModule from 'node:net';
import type * as osModule from 'node:os';
import type * as pathModule from 'node:path';
import type * as perfHooksModule from 'node:perf_hooks';
import type * as workerThreadsModule from 'node:worker_threads';
import type * as clusterModule from 'node:cluster';

/** What the pool probe reads of node:module: the loaded CommonJS modules by file. */
interface ModuleModule {
  _cache?: Record<string, { exports?: unknown } | undefined>;
}

interface Builtins {
  async_hooks: typeof asyncHooksModule;
  console: typeof consoleModule;
  diagnostics_channel: typeof diagnosticsChannelModule;
  fs: typeof fsModule;
  http: typeof httpModule;
  inspector: typeof inspectorModule;
  net: typeof netModule;
  os: typeof osModule;
  path: typeof pathModule;
  perf_hooks: typeof perfHooksModule;
  worker_threads: typeof workerThreadsModule;
  cluster: typeof clusterModule.default;
  module: ModuleModule;
}

export function builtin<K extends keyof Builtins>(name: K): Builtins[K] {
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- Node 20.14/20.15: the inspector's require
  return (get ? get.call(process, name) : require(name)) as Builtins[K];
}
