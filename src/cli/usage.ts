// The text of `hotline help`: every command and option of the CLI (main.ts).
import { DEFAULT_STACK_RATE_HZ, DEFAULT_STALL_THRESHOLD_MS, RUN_DEFAULTS } from '../core/index.ts';
import { STACK_CAPTURE_COST, STACK_RATE_PRECISION } from './facts.ts';

export const USAGE = `Usage:
  hotline profile [DIR] --url PATH|URL [--entry FILE | --script NAME | --command "…" | --attach TARGET] [options] [-- APP ARGS]
      Start the app in DIR under the inspector, load it over HTTP, profile it, print the report.
      --entry FILE            script node runs (default: package.json main, else its start script)
      --script NAME           an npm script, run as it stands (tsx, nodemon, a package bin, a framework CLI)
      --command "LINE"        any command line that starts the app (run by the shell, package bins on PATH);
                              the Node process that serves a port is the app (docs/start-command.md)
      --url PATH|URL          path joined to the port the app opens, or a full http://127.0.0.1:PORT/… URL;
                              repeated, a mix of equal weights
      --requests FILE         a request mix: a JSON or YAML list of {method, path, headers, body, weight},
                              or a HAR file (its requests to the app replayed; other hosts dropped and
                              counted); figures per route (docs/cli.md). --url then gives only the address
      --keep-secrets          send a HAR's cookie and authorization headers (left out by default)
  -m, --method M              HTTP method (default ${RUN_DEFAULTS.method})
  -H, --header K:V            request header, repeatable; autocannon's K=V form is read the same
  -b, --body TEXT             request body
  -c, --connections N         concurrent connections (default ${RUN_DEFAULTS.connections})
      --pipelining N          requests in flight per connection (default ${RUN_DEFAULTS.pipelining})
  -d, --duration S            seconds of each window, measured and profiled (default ${RUN_DEFAULTS.durationS})
      --warmup S              seconds of warm-up before measuring (default ${RUN_DEFAULTS.warmupS})
      --sampling-interval US  profiler sampling interval in µs (default ${RUN_DEFAULTS.samplingIntervalUs})
      --stall-threshold MS    list event-loop stalls of at least MS ms (default ${DEFAULT_STALL_THRESHOLD_MS}; 0: off)
      --stack-rate HZ         stack captures a second in the profiled window, for the exact calling line
                              of every frame (default ${DEFAULT_STACK_RATE_HZ}; ${STACK_RATE_PRECISION};
                              ${STACK_CAPTURE_COST}); 0: off, calling lines read from the source
      --no-waits              do not time the app's threadpool requests (crypto, zlib, fs, dns.lookup) and outgoing HTTP calls
      --heap                  also sample allocations (heap.heapprofile; bytes per function in the report)
      --timeout S             per-request timeout (default ${RUN_DEFAULTS.timeoutS})
      --env K=V               environment variable for the app, repeatable
      --node PATH             node binary for the app (default: node on PATH)
      --listen-timeout S      how long the app may take to listen (default ${RUN_DEFAULTS.listenTimeoutS})
      --stop-grace S          after its one SIGTERM, how long the app may take to shut down before
                              SIGKILL (default ${RUN_DEFAULTS.stopGraceS})
      --sub-windows N         cut the windows into N alternating measured/profiled parts (default: about 2 s
                              each, at most 10); 1 keeps the profiled window continuous (the heat map)
      --out DIR               where runs are kept (default DIR/.hotline/runs)
      --attach TARGET         profile an app that already runs instead of starting one, and leave it
                              running: its inspector URL (ws://127.0.0.1:9229/…), inspector port
                              (9229), or process id (pid:1234; Hotline sends SIGUSR1 to open the
                              inspector). DIR is the app's folder. --url may be a path when the app
                              listens on one port.
      --allow-remote-attach   allow --attach to an inspector on another host (it gives code execution)
      --load-command CMD      load with your own tool instead of autocannon, e.g.
                              "wrk -t2 -c50 -d10s {url}" ({url}, {port}, {host} are filled in; no shell).
                              It runs once per window, which lasts as long as it does (killed after
                              duration×2+30 s); wrk, ab, autocannon, artillery, k6, Locust output is parsed,
                              any output is kept in the run's load.log. Targets must be 127.0.0.1/localhost.
      --json                  print report.json on stdout
      --pprof OUT.pb.gz       also write the run's CPU profile as pprof (for Pyroscope, Parca, Datadog)
      --baseline RUN          compare with an earlier run (folder, report.json or run id); the
                              comparison is printed and kept in report.json; runs that loaded
                              something different (URL, method, body, app, Node, connections)
                              are refused with exit 2
      --force                 with --baseline: compare such runs anyway, every verdict marked
      --fail-if-slower N%     with --baseline: exit 3 when slower than N% beyond the noise, exit 4
                              when the runs cannot tell (the interval holds both ok and slower)
  hotline gate BASE [DIR] --url PATH… | --requests FILE [--entry FILE | --script NAME | --command "…"] [--fail-if-slower N%] [options] [-- APP ARGS]
      The CI gate for a shared machine: start the baseline's code (BASE, e.g. a \`git worktree add
      ../base main\`) and this code (DIR, default .) side by side, load each in turn, round after
      round (the profiler off), and exit 3 when this code is slower than the baseline by more than
      N% (default 5%) beyond the rounds' noise. The machine's drift is in both halves of a round,
      so it cancels out; two runs minutes apart differ by more than a 10% regression on a busy
      machine. Both versions must take their port from PORT (or open it with listen(0)).
      --url PATH              repeated: a mix of equal weights; each route is gated too (below)
      --requests FILE         a request mix, as for profile. With several routes, each round also
                              loads each version with the route probe on, and each route's time per
                              request (its median request's, on the main thread) is gated as the
                              whole's: a route slower beyond the noise fails the gate and is named
                              (docs/routes.md)
      --keep-secrets          as for profile
      --rounds N              rounds of one window per version (default: duration ÷ 2 s)
      --max-rounds N          undecided after its rounds, the gate adds as many again, up to N
                              rounds in all
      --max-time S            and while S seconds allow (default 270), then says inconclusive
                              (exit 4) with the rounds this noise needs
      --one-start             start each version once for all rounds, not afresh each round:
                              faster for an app slow to start, but blind to the offset between
                              two processes of the same code (docs/measurement.md, "The gate")
  -d, --duration S            seconds of load per version, over all rounds (default ${RUN_DEFAULTS.durationS})
      --warmup, --connections, --pipelining, --method, --header, --body, --timeout, --env, --node,
      --listen-timeout, --stop-grace, --json: as for profile. The figures and the verdict are kept
      in DIR/.hotline/gates/.
  hotline analyze FILE.cpuprofile|FILE.heapprofile|FILE.pb.gz [--root DIR] [--map-path FROM=TO] [--json] [--timeline OUT.json]
      Analyze a saved profile (a heap profile: bytes per function); DIR is the app folder whose
      code is "yours" (default: current folder). pprof files (gzipped or not; from Pyroscope, Parca,
      Datadog, @datadog/pprof) are read as CPU/wall profiles (cpu, wall, samples) or heap profiles
      (alloc_space, inuse_space). A node --prof log or perf script text is named, with what opens
      it (the flame graph in VS Code).
      --map-path FROM=TO      read the profile's paths under FROM (the machine that wrote it, e.g.
                              /app/) as under the folder TO here; repeatable, the first match wins
      --timeline writes its samples in time (the report's sub-second heat map) to OUT.json.
  hotline export RUN|FILE.cpuprofile --pprof OUT.pb.gz [--map-path FROM=TO]
      Write a run's CPU profile (run folder, report.json or run id) as gzipped pprof, to push to a
      continuous profiler; --map-path FROM=TO writes paths under the folder FROM here as under TO.
  hotline compare RUN_A RUN_B [--json] [--fail-if-slower N%] [--force]
      Compare two runs (folders, report.json paths or run ids): RUN_A is the baseline. Runs that
      loaded something different are refused (exit 2) unless --force.
  hotline lsp [--stdio]
      The language server, on stdin/stdout, for any LSP editor (Neovim, Helix, Emacs, Zed: see
      docs/editors.md): lenses, hovers and hint diagnostics from the newest run under each
      workspace folder's .hotline/runs, following new runs as they land.
  hotline mcp [DIR]
      Hotline's tools for coding assistants: a Model Context Protocol server on stdin/stdout for
      the app in DIR (default: the current folder). Tools: profile, hot_lines, functions, waits,
      stalls, line_detail, explain, list_runs, set_baseline, verify (see docs/assistants.md).
      They run only the workspace's own start command and load only 127.0.0.1.

Every command: -h, --help prints its usage; --verbose (or DEBUG=hotline) prints a line on stderr
for each step Hotline takes. hotline --version (-v) prints the version.

Exit codes: 0 done, 1 the run or the comparison failed (or a partial run), 2 bad usage,
3 slower than --fail-if-slower allows, 4 inconclusive (could not rule out a slowdown past
--fail-if-slower, nor show one), 130 cancelled. A URL that answers only failures stops a run
before its warm-up (exit 1).`;

/**
 * One command's part of USAGE, with the lines every command shares: what `hotline CMD --help`
 * prints. Undefined for a command USAGE does not describe.
 */
export function usageOf(command: string): string | undefined {
  const [head, tail] = [
    USAGE.slice(0, USAGE.indexOf('\n\nEvery command:')),
    USAGE.slice(USAGE.indexOf('\n\nEvery command:')),
  ];
  const sections = head.split(/\n(?= {2}hotline )/).slice(1);
  const own = sections.find((s) => s.startsWith(`  hotline ${command} `) || s.startsWith(`  hotline ${command}\n`));
  return own === undefined ? undefined : `Usage:\n${own}${tail}`;
}
