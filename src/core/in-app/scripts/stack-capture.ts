// The stack capture, inside the app (host side: capture/stacks/stack-sampler.ts, which says why and how
// it is sent). Installed once per profiled window, called at every tick from an interrupt; it
// restores what it changes (the app may rely on its own prepareStackTrace, e.g.
// source-map-support) and returns a compact text: the moment it ran (µs of process.hrtime), then
// one frame per line, its four fields apart by \u0001.
import { clearSlot, writeSlot } from './shared/state.ts';

/** Where the capture function lives while the window runs: the host calls `globalThis[Symbol.for(SLOT)]()`. */
export const SLOT = 'hotline.stack';

/** What a capture returns when the app's stack could not be read at that moment. */
export const UNUSABLE = 'unusable';

function capture(): string {
  const E = Error;
  const limit = E.stackTraceLimit;
  const prepare = E.prepareStackTrace;
  try {
    E.stackTraceLimit = 200;
    E.prepareStackTrace = (_, callSites) => callSites;
    const holder: { stack?: NodeJS.CallSite[] | string } = {};
    E.captureStackTrace(holder, capture);
    const sites = holder.stack;
    // The interrupt came while V8 was formatting another stack (the app's, or the wait probe's):
    // V8 then formats this one as text, without our prepareStackTrace. Nothing to place.
    if (!Array.isArray(sites)) return UNUSABLE;
    let text = String(process.hrtime.bigint() / 1000n) + '\n';
    for (const s of sites) {
      text +=
        (s.getScriptNameOrSourceURL() || '') +
        '\u0001' +
        s.getLineNumber() +
        '\u0001' +
        s.getColumnNumber() +
        '\u0001' +
        (s.getFunctionName() || '') +
        '\n';
    }
    return text;
  } finally {
    E.stackTraceLimit = limit;
    E.prepareStackTrace = prepare;
  }
}

export function install(): void {
  writeSlot(SLOT, capture);
}

export function uninstall(): void {
  clearSlot(SLOT);
}
