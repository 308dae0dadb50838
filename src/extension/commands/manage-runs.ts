// The runs kept: the baseline later runs are compared with, deleting a run, exporting its
// profile as pprof, refreshing the Runs view.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PROFILE_FILE } from '../../core/index.ts';
import { pickRun, type RunItem } from '../views/runs-view.ts';
import { writePprofOffThread } from '../flame/flame-merge-host.ts';
import { BASELINE, baselineOf, type Command, type Hotline } from './command-context.ts';
import { clearShownRun, openReport, showRun } from './reports.ts';

async function setBaseline(h: Hotline, from?: RunItem): Promise<void> {
  const item = from ?? (await pickRun(h.runsView.runs().items, 'The run later runs are compared with (the baseline)'));
  if (!item) return;
  await h.state.update(BASELINE, item.reportFile);
  h.runsView.refresh();
  void vscode.window.showInformationMessage(
    `Hotline: run ${item.report.id} is the baseline; later reports show their changes against it.`,
  );
}

async function compareWithBaseline(h: Hotline, from?: RunItem): Promise<void> {
  const base = baselineOf(h.state);
  if (!base)
    return void vscode.window.showInformationMessage(
      'Hotline: set a baseline first (right-click a run → Set as Baseline).',
    );
  const item =
    from ??
    (await pickRun(
      h.runsView.runs().items.filter((i) => path.resolve(i.reportFile) !== path.resolve(base)),
      'The run to compare with the baseline',
    ));
  if (item) openReport(h, item.reportFile);
}

async function deleteRun(h: Hotline, item?: RunItem): Promise<void> {
  if (!item) return;
  const ok = await vscode.window.showWarningMessage(
    `Delete run ${item.report.id} and its profile?`,
    { modal: true },
    'Delete',
  );
  if (ok !== 'Delete') return;
  await fs.promises.rm(path.dirname(item.reportFile), { recursive: true, force: true });
  if (baselineOf(h.state) === item.reportFile) await h.state.update(BASELINE, undefined);
  if (h.shown.report === item.reportFile) {
    clearShownRun(h);
    const next = h.runsView.runs().items[0];
    if (next) showRun(h, next.reportFile);
  }
  h.runsView.refresh();
}

async function exportPprof(h: Hotline, item?: RunItem): Promise<void> {
  const run = item ?? (await pickRun(h.runsView.runs().items, 'The run to export as pprof'));
  if (!run) return;
  const target = await vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.file(path.join(path.dirname(path.dirname(run.reportFile)), `${run.report.id}.pb.gz`)),
    filters: { pprof: ['gz'] },
    title: 'Export the run’s CPU profile as pprof (for Pyroscope, Parca, Datadog)',
  });
  if (!target) return;
  try {
    await writePprofOffThread(h.extensionUri, path.join(path.dirname(run.reportFile), PROFILE_FILE), target.fsPath);
    void vscode.window.showInformationMessage(`Hotline: wrote ${target.fsPath} (pprof).`);
  } catch (err) {
    void vscode.window.showErrorMessage(`Hotline: could not export the run as pprof: ${(err as Error).message}`);
  }
}

export const runsCommands: Record<string, Command> = {
  'hotline.refreshRuns': (h) => h.runsView.refresh(),
  'hotline.setBaseline': setBaseline,
  'hotline.clearBaseline': async (h) => {
    await h.state.update(BASELINE, undefined);
    h.runsView.refresh();
  },
  'hotline.compareWithBaseline': compareWithBaseline,
  'hotline.deleteRun': deleteRun,
  'hotline.exportPprof': exportPprof,
};
