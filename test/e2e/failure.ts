// What a failed e2e test leaves for whoever reads it: a screenshot, the notifications on screen,
// the workbench in one line (focus, quick input, tabs, side bar, panel),
// the extension host's recent Hotline and error lines, and the browser's recent errors and warnings
// (a webview's host page reports its own failures only there).
import type { TestContext } from 'node:test';
import type { VSCode } from './harness.ts';
import * as dom from './vscode-dom.ts';

export async function describeFailure(vs: VSCode, t: TestContext, screenshot: string): Promise<void> {
  await vs.screenshot(screenshot).catch(() => undefined);
  t.diagnostic(`notifications: ${JSON.stringify(await dom.notificationTexts(vs.page).catch(() => []))}`);
  t.diagnostic(`workbench: ${await dom.describeWorkbench(vs.page)}`);
  const log = vs
    .extensionHostLog()
    .split('\n')
    .filter((l) => /hotline|error/i.test(l))
    .slice(-40);
  t.diagnostic(`extension host log:\n${log.join('\n')}`);
  const browser = vs
    .browserLogs()
    .filter((l) => /^\[(error|warning|pageerror)\]/.test(l))
    .slice(-20);
  t.diagnostic(`browser errors and warnings:\n${browser.join('\n')}`);
}
