// routes.json: the route probe's record of the profiled window (inspector/route-probe.ts), written
// by the capture (capture/extras/route-traces.ts) and read by the analysis (analyze-run/analyze-routes.ts).

export const ROUTES_FILE = 'routes.json';

export interface RoutesFile {
  version: 1;
  /**
   * What the main thread served, as changes on the merged profile's timeline (the timeline's
   * clock: µs from the profile's start), flat pairs: µs, request id (0: no request; -1: not
   * recorded from there, the probe's buffer was full).
   */
  changes: number[];
  /**
   * Per request begun while the probe was on, 7 numbers: id, µs begun, µs finished (-1: not
   * finished while the probe was on), status, method, path, route pattern (indices into
   * `strings`; route -1: none given by the framework). Times on the app's clock.
   */
  requests: number[];
  strings: string[];
  /** Detours through "no request" shorter than the probe's merge bound, merged: how many, µs. */
  merged: [number, number];
  /** How long the probe was on, µs (all sub-windows together). */
  activeUs: number;
  droppedRequests: number;
  /** Label changes that fell outside the profile (between its segments) and were moved to the next segment's start. */
  moved: number;
}
