// The app's Node version, as its own inspector reports it (`/json/version`: "node.js/v20.20.0").
// The app may run on another Node than Hotline (--node, an npm script, nvm), and two runs on
// different Nodes are not the same code (verdicts/comparable.ts refuses to compare them).

/** "v20.20.0", or undefined when the inspector does not say (it is not worth failing a run for). */
export async function nodeVersionOf(inspectorWsUrl: string, timeoutMs = 2000): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(inspectorWsUrl);
  } catch {
    return undefined; // not a URL: nothing to ask
  }
  try {
    const res = await fetch(`http://${url.host}/json/version`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return undefined;
    return versionOfBrowser(((await res.json()) as { Browser?: unknown }).Browser);
  } catch {
    return undefined; // the inspector did not answer in time: the run goes on without it
  }
}

/** "node.js/v20.20.0" → "v20.20.0". */
export function versionOfBrowser(browser: unknown): string | undefined {
  const m = typeof browser === 'string' ? /^node\.js\/(v\d+\.\d+\.\d+\S*)$/.exec(browser) : null;
  return m ? m[1] : undefined;
}
