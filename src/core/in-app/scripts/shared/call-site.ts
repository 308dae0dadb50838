// The calling line of the user's code, from inside the app: the first frame of the current stack
// that is neither Node's, nor a dependency's (node_modules), nor one of Hotline's own scripts
// (their sourceURL starts with `hotline:`). Sites are kept once each in a table; a request notes
// the site's index.

/** A calling line: [file, line, column, function], 1-based as V8's CallSite gives them. */
export type Site = [string, number, number, string];

export interface SiteTable {
  sites: Site[];
  siteIndex: Map<string, number>;
}

export const newSiteTable = (): SiteTable => ({ sites: [], siteIndex: new Map() });

const isOwnOrDependency = (file: string): boolean =>
  file.startsWith('node:') ||
  file.startsWith('hotline:') ||
  file.includes('/node_modules/') ||
  file.includes('\\node_modules\\');

function siteOf(table: SiteTable, callSites: NodeJS.CallSite[]): number {
  for (const s of callSites) {
    const file = s.getFileName();
    // A script of Hotline's is named by its sourceURL, which getFileName does not give.
    if (!file || isOwnOrDependency(file) || s.getScriptNameOrSourceURL()?.startsWith('hotline:')) continue;
    const key = `${file}:${s.getLineNumber()}:${s.getColumnNumber()}`;
    let i = table.siteIndex.get(key);
    if (i === undefined) {
      i = table.sites.length;
      table.siteIndex.set(key, i);
      table.sites.push([file, s.getLineNumber() ?? 0, s.getColumnNumber() ?? 0, s.getFunctionName() || '']);
    }
    return i;
  }
  return -1;
}

/**
 * The user's site in a stack captured earlier and not read yet (V8 formats it at the first read,
 * with the prepareStackTrace of that moment); -1 when it has none or was already formatted.
 */
export function userSiteOf(table: SiteTable, holder: { stack?: unknown }): number {
  const prepare = Error.prepareStackTrace;
  try {
    Error.prepareStackTrace = (_, sites) => sites;
    const stack = holder.stack;
    return Array.isArray(stack) ? siteOf(table, stack as NodeJS.CallSite[]) : -1;
  } finally {
    Error.prepareStackTrace = prepare;
  }
}

/**
 * The index of the first user frame below `below` (a function on the stack, left out with all
 * above it), at most `depth` frames deep; -1 when there is none. Error's settings are restored:
 * the app may rely on its own prepareStackTrace (source-map-support).
 */
export function userSite(table: SiteTable, below: (...args: never[]) => unknown, depth = 24): number {
  const E = Error;
  const limit = E.stackTraceLimit;
  const prepare = E.prepareStackTrace;
  try {
    E.stackTraceLimit = depth;
    E.prepareStackTrace = (_, sites) => sites;
    const holder: { stack?: NodeJS.CallSite[] } = {};
    E.captureStackTrace(holder, below);
    return Array.isArray(holder.stack) ? siteOf(table, holder.stack) : -1;
  } finally {
    E.stackTraceLimit = limit;
    E.prepareStackTrace = prepare;
  }
}
