// Every option of every command, once: parseArgs reads its configuration from here (args.ts), and
// docs/cli.md's options table and the flag ↔ setting table are generated from it
// (scripts/docs-tables.ts; test/unit/cli/docs-tables.test.ts fails when a doc disagrees).
import { DEFAULT_STACK_RATE_HZ, DEFAULT_STALL_THRESHOLD_MS, RUN_DEFAULTS } from '../core/index.ts';
import { STACK_CAPTURE_COST, STACK_RATE_PRECISION } from './facts.ts';

export interface OptionSpec {
  name: string;
  /** One letter, as autocannon spells it (`-c 100`), where no other option of the command needs it. */
  short?: string;
  /** The value's placeholder (`N`, `K:V`); none: a switch. */
  arg?: string;
  multiple?: boolean;
  default?: string | number;
  /** What it does, one sentence for the table (usage.ts has the longer help). */
  help: string;
  /** The VS Code setting that does the same (docs/vscode.md's mapping). */
  setting?: string;
}

export type CommandName = 'profile' | 'gate' | 'analyze' | 'compare' | 'export';

const opt = (name: string, help: string, more: Omit<OptionSpec, 'name' | 'help'> = {}): OptionSpec => ({
  name,
  help,
  ...more,
});

/** How the app is started and loaded: `profile` and `gate` take these alike. */
export const APP_AND_LOAD: OptionSpec[] = [
  opt('entry', 'script node runs (default: package.json `main`, else its `start` script)', {
    arg: 'FILE',
    setting: 'hotline.entry',
  }),
  opt('script', 'an npm script, run as it stands (tsx, nodemon, ts-node, a pipeline, a framework CLI)', {
    arg: 'NAME',
  }),
  opt('command', 'any command line that starts the app (run by the shell, package bins on PATH)', { arg: '"LINE"' }),
  opt('url', 'path joined to the port the app opens, or a full `http://127.0.0.1:PORT/…` URL', {
    arg: 'PATH|URL',
    setting: 'hotline.url',
  }),
  opt('method', 'HTTP method', { short: 'm', arg: 'M', default: RUN_DEFAULTS.method, setting: 'hotline.method' }),
  opt('header', 'request header, repeatable; `K=V` (autocannon) is read as `K:V`', {
    short: 'H',
    arg: 'K:V',
    multiple: true,
    setting: 'hotline.headers',
  }),
  opt('body', 'request body', { short: 'b', arg: 'TEXT', setting: 'hotline.body' }),
  opt('connections', 'concurrent connections', {
    short: 'c',
    arg: 'N',
    default: RUN_DEFAULTS.connections,
    setting: 'hotline.connections',
  }),
  opt('pipelining', 'requests in flight per connection', {
    arg: 'N',
    default: RUN_DEFAULTS.pipelining,
    setting: 'hotline.pipelining',
  }),
  opt('duration', 'seconds of each window, measured and profiled (gate: of load per version)', {
    short: 'd',
    arg: 'S',
    default: RUN_DEFAULTS.durationS,
    setting: 'hotline.duration',
  }),
  opt('warmup', 'seconds of warm-up before measuring', {
    arg: 'S',
    default: RUN_DEFAULTS.warmupS,
    setting: 'hotline.warmup',
  }),
  opt('timeout', 'per-request timeout, seconds', {
    arg: 'S',
    default: RUN_DEFAULTS.timeoutS,
    setting: 'hotline.timeout',
  }),
  opt('env', 'environment variable for the app, repeatable', { arg: 'K=V', multiple: true, setting: 'hotline.env' }),
  opt('node', 'node binary for the app (default: node on PATH)', { arg: 'PATH', setting: 'hotline.nodePath' }),
  opt('listen-timeout', 'seconds the app may take to listen', {
    arg: 'S',
    default: RUN_DEFAULTS.listenTimeoutS,
    setting: 'hotline.listenTimeout',
  }),
  opt('stop-grace', "seconds between the app's one SIGTERM and SIGKILL", {
    arg: 'S',
    default: RUN_DEFAULTS.stopGraceS,
    setting: 'hotline.stopGracePeriod',
  }),
  opt('json', 'print the report (gate: its figures and verdict) as JSON on stdout'),
  opt(
    'fail-if-slower',
    'exit 3 when slower than N% beyond the noise, 4 when the runs cannot tell (profile: with --baseline; gate: default 5%)',
    {
      arg: 'N%',
    },
  ),
];

const MAP_PATH = opt(
  'map-path',
  "read (analyze) or write (export) the profile's paths under FROM as under TO; repeatable",
  {
    arg: 'FROM=TO',
    multiple: true,
    setting: 'hotline.pathMap',
  },
);

/** profile loads several URLs at once: a mix of equal weights (core/load/request-mix.ts). */
const PROFILE_URL = opt(
  'url',
  'path joined to the port the app opens, or a full `http://127.0.0.1:PORT/…` URL; repeated: a mix of equal weights',
  { arg: 'PATH|URL', multiple: true, setting: 'hotline.url' },
);

/** A request mix, `profile`'s and `gate`'s. */
const MIX_OPTIONS: OptionSpec[] = [
  opt('requests', 'a request mix: a JSON or YAML list of {method, path, headers, body, weight}, or a HAR file', {
    arg: 'FILE',
  }),
  opt('keep-secrets', "send a HAR's cookie and authorization headers (left out by default)"),
];

export const COMMAND_OPTIONS: Record<CommandName, OptionSpec[]> = {
  profile: [
    ...APP_AND_LOAD.map((o) => (o.name === 'url' ? PROFILE_URL : o)),
    ...MIX_OPTIONS,
    opt('sampling-interval', 'profiler sampling interval, µs', {
      arg: 'US',
      default: RUN_DEFAULTS.samplingIntervalUs,
      setting: 'hotline.samplingInterval',
    }),
    opt('stall-threshold', 'list event-loop stalls of at least MS ms; 0: off', {
      arg: 'MS',
      default: DEFAULT_STALL_THRESHOLD_MS,
      setting: 'hotline.stallThresholdMs',
    }),
    opt(
      'stack-rate',
      `stack captures a second in the profiled window, for exact calling lines (${STACK_RATE_PRECISION}; ${STACK_CAPTURE_COST}); 0: off`,
      { arg: 'HZ', default: DEFAULT_STACK_RATE_HZ, setting: 'hotline.stackCaptureRate' },
    ),
    opt('no-waits', "do not time the app's threadpool requests, outgoing HTTP calls and data-store queries", {
      setting: 'hotline.threadpoolWaits',
    }),
    opt('heap', 'also sample allocations (bytes per function in the report)', { setting: 'hotline.heapSampling' }),
    opt(
      'sub-windows',
      'cut the windows into N alternating measured/profiled parts (default: about 2 s each, at most 10)',
      {
        arg: 'N',
      },
    ),
    opt('out', 'where runs are kept (default: DIR/.hotline/runs)', { arg: 'DIR' }),
    opt('attach', 'profile an app that already runs: its inspector URL, inspector port or pid:PID', {
      arg: 'TARGET',
    }),
    opt('allow-remote-attach', 'allow --attach to an inspector on another host (it gives code execution)', {
      setting: 'hotline.allowRemoteAttach',
    }),
    opt('load-command', 'load with your own tool (`wrk -d10s {url}`) instead of autocannon', {
      arg: 'CMD',
      setting: 'hotline.loadCommand',
    }),
    opt('pprof', "also write the run's CPU profile as pprof", { arg: 'OUT.pb.gz' }),
    opt('baseline', 'compare with an earlier run (folder, report.json or run id)', { arg: 'RUN' }),
    opt('force', 'with --baseline: compare runs that loaded something different, every verdict marked'),
  ],
  gate: [
    ...APP_AND_LOAD.map((o) => (o.name === 'url' ? PROFILE_URL : o)),
    ...MIX_OPTIONS,
    opt('rounds', 'rounds of one window per version (default: duration ÷ 2 s)', { arg: 'N' }),
    opt('max-rounds', 'undecided after its rounds, add as many again up to N rounds in all', { arg: 'N' }),
    opt('max-time', 'undecided, add rounds until S seconds have passed (default 270)', { arg: 'S' }),
    opt('one-start', 'start each version once for all rounds, not afresh each round'),
  ],
  analyze: [
    opt('root', 'the app folder whose code is "yours" (default: the current folder)', { arg: 'DIR' }),
    MAP_PATH,
    opt('json', 'print the analysis as JSON on stdout'),
    opt('timeline', "write the samples in time (the report's heat map) to OUT.json", { arg: 'OUT.json' }),
  ],
  compare: [
    opt('json', 'print the comparison as JSON on stdout'),
    opt('fail-if-slower', 'exit 3 when slower than N% beyond the noise, 4 when the runs cannot tell', { arg: 'N%' }),
    opt('force', 'compare runs that loaded something different, every verdict marked'),
  ],
  export: [opt('pprof', 'the pprof file to write (gzipped)', { arg: 'OUT.pb.gz' }), MAP_PATH],
};

/** Every command takes these; main.ts answers --help before the command runs. */
export const COMMON_OPTIONS: OptionSpec[] = [
  opt('help', "print the command's usage", { short: 'h' }),
  opt('verbose', 'one line on stderr for each step Hotline takes (also: DEBUG=hotline)'),
];

type ParseConfig = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

/** The options as parseArgs takes them. */
export function parseConfigOf(specs: OptionSpec[]): ParseConfig {
  const out: ParseConfig = {};
  for (const s of specs)
    out[s.name] = {
      type: s.arg === undefined ? 'boolean' : 'string',
      ...(s.short !== undefined ? { short: s.short } : {}),
      ...(s.multiple === true ? { multiple: true } : {}),
    };
  return out;
}
