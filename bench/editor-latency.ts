// Figure 5, editor latency, in a real VS Code (code-server + Chromium, the e2e harness):
// - from the end of a run (its run.json written: the app stopped, the capture on disk) to the
//   CodeLens on the hot line visible in the open editor (analysis in the language server,
//   report, lenses); a run of the login example with 60 s windows (HOTLINE_BENCH_QUICK: 3 s).
// - from a 100 MB .cpuprofile's editor tab showing to speedscope's flame graph drawn (its
//   toolbar names the file only once the profile is imported and drawn).
// Also figure 6's activation time: VS Code's own measure (code loading + activate() call and
// its promise), read from Developer: Show Running Extensions.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureSetup, startVSCode, type VSCode } from '../test/e2e/harness.ts';
import * as dom from '../test/e2e/vscode-dom.ts';
import { LOGIN_SETTINGS, loginApiCopy, packExtension } from '../test/e2e/hotline-setup.ts';
import { QUICK, progress, round, type Figure } from './common.ts';

const RUN_WINDOW_S = QUICK ? 3 : 60;

export interface EditorLatency {
  figures: Figure[];
  /** Activation time as VS Code reports it, ms (undefined when it could not be read). */
  activationMs?: number;
  activationText?: string;
}

export async function benchEditorLatency(dir: string, bigProfile: string): Promise<EditorLatency> {
  ensureSetup();
  const vsix = packExtension(dir);
  const workspace = loginApiCopy(dir);
  const profileName = 'big.cpuprofile';
  fs.linkSync(bigProfile, path.join(workspace, profileName));
  progress('editor latency: starting VS Code');
  const vs: VSCode = await startVSCode({
    workspace,
    extensionVsix: vsix,
    userSettings: {
      ...LOGIN_SETTINGS,
      'hotline.duration': RUN_WINDOW_S,
      'hotline.warmup': 2,
      'files.watcherExclude': { [`**/${profileName}`]: true },
    },
  });
  const figures: Figure[] = [];
  const out: EditorLatency = { figures };
  try {
    const { page } = vs;
    await dom.openFile(page, 'server.js');
    progress(`editor latency: a run with ${RUN_WINDOW_S} s windows`);
    await dom.runCommand(page, 'Hotline: Profile Under Load');
    const runsDir = path.join(workspace, '.hotline', 'runs');
    // The report opens beside the editor and takes the focus; VS Code 1.139 does not re-query
    // the lenses of an editor that lost the focus (a lens refresh from the server shows only once
    // the editor is active again: measured, lenses absent 8 s later). So, as a user would, the
    // bench goes back to server.js as soon as the report tab shows, then waits for the lens.
    await dom
      .tabByTitle(page, 'Hotline Report')
      .first()
      .waitFor({ state: 'visible', timeout: (2 * RUN_WINDOW_S + (QUICK ? 60 : 180)) * 1000 });
    const reportTabAt = Date.now();
    await dom.activateTab(page, 'server.js');
    const lens = dom
      .codeLenses(page)
      .filter({ hasText: /of CPU under load/ })
      .first();
    await lens.waitFor({ state: 'visible', timeout: 60_000 });
    const lensAt = Date.now();
    const run = fs.readdirSync(runsDir).filter((d) => fs.existsSync(path.join(runsDir, d, 'run.json')))[0];
    const endedAt = fs.statSync(path.join(runsDir, run, 'run.json')).mtimeMs;
    const reportAt = fs.statSync(path.join(runsDir, run, 'report.json')).mtimeMs;
    const lensS = (lensAt - endedAt) / 1000;
    figures.push({
      id: 'lens-latency',
      name: `Run end → lenses visible (${RUN_WINDOW_S} s windows)`,
      median: round(lensS, 2),
      unit: 's',
      target: '<= 0.5',
      pass: lensS <= 0.5,
      samples: {
        analysisS: round((reportAt - endedAt) / 1000, 2),
        reportToTabS: round((reportTabAt - reportAt) / 1000, 2),
        tabToLensS: round((lensAt - reportTabAt) / 1000, 2),
        profileMB: round(fs.statSync(path.join(runsDir, run, 'profile.cpuprofile')).size / 1e6, 1),
      },
      note: 'run end = run.json written (app stopped, capture on disk); analysisS = until report.json written; the editor tab is re-activated when the report tab shows (lenses of an unfocused editor are not refreshed)',
    });
    progress(`editor latency: lenses ${lensS.toFixed(2)} s after the run's end`);
    out.activationText = await activationTime(vs);
    const ms = /(\d+)\s*ms/.exec(out.activationText ?? '');
    if (ms) out.activationMs = Number(ms[1]);

    progress(`activation: ${out.activationText ?? 'not read'}`);
    await dom.closeAllEditors(page);
    await dom.dismissNotifications(page);
    progress(`editor latency: opening a ${(fs.statSync(bigProfile).size / 1e6).toFixed(0)} MB .cpuprofile`);
    const cpuBefore = hostAndServerCpuS();
    await dom.openFile(page, profileName, { textEditor: false, timeout: 120_000 });
    const openedAt = Date.now();
    const flame = await dom.webviewFrame(page, { title: profileName, timeout: 120_000 });
    await flame.getByText(profileName).first().waitFor({ state: 'visible', timeout: 300_000 });
    const flameS = (Date.now() - openedAt) / 1000;
    const cpuAfter = hostAndServerCpuS();
    // Where opening it cost CPU: the analysis must burn the language server's, not the host's.
    const offThread = {
      extensionHostCpuS: round(cpuAfter.extensionHost - cpuBefore.extensionHost, 2),
      languageServerCpuS: round(cpuAfter.languageServer - cpuBefore.languageServer, 2),
    };
    progress(
      `editor latency: CPU while opening it: extension host ${offThread.extensionHostCpuS} s, language server ${offThread.languageServerCpuS} s`,
    );
    figures.push({
      id: 'flame-latency',
      name: `Open ${(fs.statSync(bigProfile).size / 1e6).toFixed(0)} MB .cpuprofile → flame graph drawn`,
      median: round(flameS, 2),
      unit: 's',
      target: '<= 5',
      pass: flameS <= 5,
      samples: offThread,
      note: "from its editor tab showing to speedscope's toolbar naming the file (drawn); samples: CPU seconds each process used meanwhile (the analysis runs in the language server)",
    });
    progress(`editor latency: flame graph drawn ${flameS.toFixed(1)} s after opening`);
  } catch (err) {
    const shot = await vs.screenshot('bench-editor-latency-failure').catch(() => '');
    progress(
      `editor latency failed; screenshot ${shot}; notifications ${JSON.stringify(await dom.notificationTexts(vs.page).catch(() => []))}`,
    );
    throw err;
  } finally {
    await vs.stop();
  }
  return out;
}

/** CPU seconds (utime + stime, /proc) of VS Code's extension host and of Hotline's language server. */
function hostAndServerCpuS(): { extensionHost: number; languageServer: number } {
  const out = { extensionHost: 0, languageServer: 0 };
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmd: string;
    let stat: string;
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuS = (Number(f[11]) + Number(f[12])) / 100;
    if (cmd.includes('--type=extensionHost') || cmd.includes('extensionHostProcess')) out.extensionHost += cpuS;
    else if (cmd.includes(`${path.sep}dist${path.sep}server.js`) && cmd.includes('hotline')) out.languageServer += cpuS;
  }
  return out;
}

/** The Hotline row of Developer: Show Running Extensions (VS Code's own activation measure). */
async function activationTime(vs: VSCode): Promise<string | undefined> {
  try {
    await dom.runCommand(vs.page, 'Developer: Show Running Extensions');
    const row = vs.page
      .locator('.monaco-list-row')
      .filter({ hasText: /Hotline/ })
      .filter({ hasText: /Activation/ })
      .first();
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    const text = ((await row.textContent()) ?? '').replace(/\s+/g, ' ');
    return /(Startup )?Activation: [\d.]+\s*ms/.exec(text)?.[0] ?? text;
  } catch (err) {
    progress(`activation time not read: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  } finally {
    // It opens as a modal editor: close it before anything else.
    await vs.page.keyboard.press('Escape').catch(() => undefined);
  }
}
