// The profile tool's input: the options of `hotline profile` that a model may set, typed (zod),
// and their translation into the engine's RunOptions. What runs is the workspace's own start
// command only: an entry file inside the workspace or a script of its package.json — no
// command lines, no node binary, no external load command, no attach, and no environment
// variable that changes which code runs. The engine refuses a URL off 127.0.0.1 (run-settings.ts).
import * as path from 'node:path';
import * as z from 'zod';
import { mixUrl, readRequestMix, type RequestMix, resolveTarget, runsDirOf, type RunOptions } from '../core/index.ts';
import { ToolError } from './results.ts';

const seconds = (what: string, max: number) => z.number().positive().max(max).describe(what);

export const profileInput = {
  url: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The path to load, e.g. "/login?user=a" (joined to the port the app opens), or http://127.0.0.1:PORT/…; or give requests',
    ),
  requests: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Instead of url: a request mix file in the workspace (JSON, YAML or a HAR), several routes in one run; the routes tool then gives each its figures',
    ),
  method: z
    .string()
    .regex(/^[A-Za-z]+$/)
    .optional()
    .describe('HTTP method (default GET)'),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .describe('Request headers, e.g. {"content-type": "application/json"}'),
  body: z.string().optional().describe('Request body'),
  entry: z
    .string()
    .optional()
    .describe("The app's entry file, relative to the workspace (default: package.json main or start script)"),
  script: z
    .string()
    .optional()
    .describe('An npm script of the workspace package.json that starts the app (e.g. "start")'),
  env: z.record(z.string(), z.string()).optional().describe('Environment variables for the app'),
  connections: z.number().int().min(1).max(1000).optional().describe('Concurrent connections (default 10)'),
  duration: seconds(
    'Seconds of each window, measured and profiled (default 10; a verdict needs 4 sub-windows a side)',
    600,
  ).optional(),
  warmup: z.number().min(0).max(600).optional().describe('Seconds of warm-up before measuring (default 2)'),
  subWindows: z
    .number()
    .int()
    .min(1)
    .max(50)
    .optional()
    .describe('Cut the windows into N alternating measured/profiled parts (default: about 2 s each); verify needs 4+'),
  timeout: seconds('Per-request timeout in seconds (default 10)', 600).optional(),
  listenTimeout: seconds('Seconds the app may take to listen (default 30)', 600).optional(),
};

export const ProfileArgs = z.object(profileInput);
export type ProfileArgs = z.infer<typeof ProfileArgs>;

/** Variables that change which code or binary runs: refused, the start command is the workspace's. */
const CODE_CHANGING_ENV = /^(NODE_OPTIONS|NODE_PATH|PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|SHELL|npm_\w+|NPM_\w+)$/;

/** The engine's options for a run of the workspace at `root`; ToolError says what is refused. */
export function runOptionsOf(root: string, a: ProfileArgs): Omit<RunOptions, 'signal' | 'onProgress'> {
  if (a.entry !== undefined && a.script !== undefined) throw new ToolError('give entry or script, not both');
  if (a.entry !== undefined) {
    const file = path.resolve(root, a.entry);
    const r = path.relative(root, file);
    if (r === '' || r.startsWith('..') || path.isAbsolute(r))
      throw new ToolError(`entry ${a.entry} is outside the workspace ${root}: only the workspace's own app runs`);
  }
  for (const name of Object.keys(a.env ?? {})) {
    if (CODE_CHANGING_ENV.test(name))
      throw new ToolError(
        `env ${name} is refused: it changes which code runs, and only the workspace's own start command runs`,
      );
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ToolError(`env "${name}" is not a variable name`);
  }
  if ((a.url === undefined) === (a.requests === undefined)) throw new ToolError('give url or requests (one of them)');
  const mix = a.requests !== undefined ? mixIn(root, a.requests) : undefined;
  const target = resolveTarget(root, { entry: a.entry, script: a.script, env: a.env ?? {} });
  return {
    target,
    url: mix ? mixUrl(mix) : a.url!,
    ...(mix ? { requests: mix.requests } : {}),
    method: a.method,
    headers: a.headers ?? {},
    body: a.body,
    connections: a.connections,
    durationS: a.duration,
    warmupS: a.warmup,
    subWindows: a.subWindows,
    timeoutS: a.timeout,
    listenTimeoutS: a.listenTimeout,
    runsDir: runsDirOf(root),
  };
}

/** A mix file inside the workspace, read as `--requests` reads it; ToolError says what is wrong. */
function mixIn(root: string, file: string): RequestMix {
  const full = path.resolve(root, file);
  const r = path.relative(root, full);
  if (r === '' || r.startsWith('..') || path.isAbsolute(r))
    throw new ToolError(`requests ${file} is outside the workspace ${root}: give a mix file of the workspace`);
  try {
    return readRequestMix(full);
  } catch (err) {
    throw new ToolError((err as Error).message);
  }
}
