// Small rules every layer shares: which hosts are this machine, secrets kept out of reports, how
// a run fails.
export { bundledScript } from './bundles.ts';
export { dataUrlText } from './data-url.ts';
export { indexer } from './indexer.ts';
export { isJson } from './json.ts';
export { isLoopback, type ListenAddress } from './loopback.ts';
export { isBelow, isWithin } from './paths.ts';
export { redactBody, redactCommand, REDACTED, redactEnv, redactHeaders, redactUrl } from './redact.ts';
export { RunError } from './run-error.ts';
export { routeKey, routeOf } from './routes.ts';
export { isNodeInternalThread } from './threads.ts';
