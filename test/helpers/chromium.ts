// The browser of the webview and e2e suites: Debian's chromium, checked before a suite opens
// anything, so a missing or broken one ends the suite at once with one line saying what to
// install (rather than a Playwright stack trace, or servers left open by a failed launch).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

const INSTALL =
  "install Debian's chromium (`sudo apt-get install chromium`, or `bash scripts/e2e-setup.sh`, which `npm test` runs first)";
const REINSTALL = "reinstall Debian's chromium (`sudo apt-get install --reinstall chromium`)";

/** Why Chromium cannot run here, in one line; undefined when `chromium --version` answers. */
export function chromiumProblem(): string | undefined {
  try {
    fs.accessSync(CHROMIUM, fs.constants.X_OK);
  } catch {
    return `${CHROMIUM} is missing: ${INSTALL}`;
  }
  const r = spawnSync(CHROMIUM, ['--headless', '--no-sandbox', '--version'], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0 || !/^Chromium \d+/.test(r.stdout)) {
    const why = r.error ? r.error.message : `exit ${r.status ?? r.signal}`;
    return `${CHROMIUM} does not run (\`chromium --version\`: ${why}): ${REINSTALL}`;
  }
  return undefined;
}

/** Throws the one-line reason when Chromium cannot run; checked once per process. */
export function assertChromium(): void {
  checked ??= chromiumProblem() ?? '';
  if (checked) throw new Error(checked);
}
let checked: string | undefined;
