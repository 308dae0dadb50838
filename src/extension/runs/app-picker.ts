// Finds the app to profile the way a user expects — the hotline.entry setting, a launch.json
// Node configuration, package.json main / start — and asks only when none of them says.
// The choice is remembered per workspace folder.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type LaunchSpec, resolveTarget, TargetError } from '../../core/index.ts';
import { nodeConfigsFromLaunchJson } from './launch-config.ts';
import type { HotlineSettings } from '../settings.ts';

const REMEMBERED = 'hotline.app';

interface Remembered {
  /** The launch.json configuration name or the entry file chosen last time. */
  launchConfig?: string;
  entry?: string;
}

export async function pickApp(
  folder: vscode.WorkspaceFolder,
  settings: HotlineSettings,
  state: vscode.Memento,
): Promise<LaunchSpec | undefined> {
  const dir = folder.uri.fsPath;
  const withSettings = (spec: LaunchSpec): LaunchSpec => ({
    ...spec,
    env: { ...settings.env, ...(spec.env ?? {}) },
    nodePath: spec.nodePath ?? (settings.nodePath || undefined),
    args: spec.args && spec.args.length > 0 ? spec.args : settings.args,
  });
  if (settings.entry) return withSettings({ cwd: dir, entry: settings.entry });

  const remembered = state.get<Record<string, Remembered>>(REMEMBERED, {})[dir] ?? {};
  const fromLaunch = readLaunchJson(dir);
  if (fromLaunch.choices.length > 0) {
    const again = fromLaunch.choices.find((c) => c.label === remembered.launchConfig);
    if (again) return withSettings(again.spec);
    const picked =
      fromLaunch.choices.length === 1
        ? fromLaunch.choices[0]
        : await vscode.window
            .showQuickPick(
              fromLaunch.choices.map((c) => ({
                label: c.label,
                description: c.spec.command ?? path.relative(dir, path.resolve(c.spec.cwd, c.spec.entry)),
                choice: c,
              })),
              { title: 'Hotline: which launch configuration starts the app?', ignoreFocusOut: true },
            )
            .then((p) => p?.choice);
    if (!picked) return undefined;
    await remember(state, dir, { launchConfig: picked.label });
    return withSettings(picked.spec);
  }
  if (remembered.entry && fs.existsSync(path.resolve(dir, remembered.entry)))
    return withSettings({ cwd: dir, entry: remembered.entry });
  try {
    return withSettings(resolveTarget(dir, {}));
  } catch (err) {
    if (!(err instanceof TargetError)) throw err;
  }
  const entry = await askForEntry(folder, fromLaunch.skipped);
  if (!entry) return undefined;
  await remember(state, dir, { entry });
  return withSettings({ cwd: dir, entry });
}

function readLaunchJson(dir: string): ReturnType<typeof nodeConfigsFromLaunchJson> {
  const file = path.join(dir, '.vscode', 'launch.json');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { choices: [], skipped: [] };
  }
  return nodeConfigsFromLaunchJson(text, {
    folder: dir,
    env: process.env,
    homeDir: os.homedir(),
    npmScript: (cwd, name) => {
      try {
        const pkg = JSON.parse(fs.readFileSync(path.join(cwd, 'package.json'), 'utf8')) as {
          scripts?: Record<string, unknown>;
        };
        const s = pkg.scripts?.[name];
        return typeof s === 'string' ? s : undefined;
      } catch {
        return undefined;
      }
    },
    readEnvFile: (f) => {
      try {
        return fs.readFileSync(f, 'utf8');
      } catch {
        return undefined;
      }
    },
  });
}

async function askForEntry(folder: vscode.WorkspaceFolder, skipped: string[]): Promise<string | undefined> {
  const candidates = await vscode.workspace.findFiles(
    new vscode.RelativePattern(folder, '**/*.{js,mjs,cjs}'),
    '**/{node_modules,.hotline,.git}/**',
    200,
  );
  const likely = /(^|\/)(server|app|index|main|start)\.(m|c)?js$/;
  const items = candidates
    .map((u) => path.relative(folder.uri.fsPath, u.fsPath))
    .sort(
      (a, b) =>
        Number(likely.test(b)) - Number(likely.test(a)) ||
        a.split('/').length - b.split('/').length ||
        a.localeCompare(b),
    )
    .map((rel) => ({ label: rel }));
  const note = skipped.length > 0 ? ` (launch.json: ${skipped[0]})` : '';
  const picked = await vscode.window.showQuickPick(items, {
    title: `Hotline: which file starts the app?${note}`,
    placeHolder: 'Pick the script node runs (set hotline.entry to skip this question)',
    ignoreFocusOut: true,
  });
  return picked?.label;
}

async function remember(state: vscode.Memento, dir: string, value: Remembered): Promise<void> {
  const all = state.get<Record<string, Remembered>>(REMEMBERED, {});
  await state.update(REMEMBERED, { ...all, [dir]: value });
}

export async function forgetApp(state: vscode.Memento, dir: string): Promise<void> {
  const all = { ...state.get<Record<string, Remembered>>(REMEMBERED, {}) };
  delete all[dir];
  await state.update(REMEMBERED, all);
}
