// The HTTP load: autocannon in a child process (load-run, runner, protocol), or the user's own
// tool (external, parsers, argv).
export { checkLoadCommand, ExternalLoad, isExternalResult, LOAD_LOG_FILE } from './external.ts';
export { LoadError, type LoadOptions, LoadRun, type LoadTick, type PhaseResult } from './load-run.ts';
export { probe, probeFailureLine, type ProbeOutcome } from './probe.ts';
export { interleave, mixFromUrls, mixUrl, parseRequestMix, type MixRequest, type RequestMix } from './request-mix.ts';
export { readRequestMix } from './request-mix-file.ts';
export { routesFromLoad } from './route-figures.ts';
